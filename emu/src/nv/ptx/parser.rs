//! PTX text → [`Module`]: directives, module variables (`.global`, `.const`, `.shared`),
//! `.entry` and `.func` (prototypes and definitions) with their parameters, register and
//! variable declarations ([`vars`]: their layout and bounds), nested blocks, labels, predicated
//! instructions and calls. Errors name the line.

use super::ir::*;
use super::lexer::{lex, Tok, Token};
use super::scope::{sym_reg, Scopes};
use super::shared_budget::{self, SharedVar};
use super::{Module, PtxError};
use baregpu_drivers::nv::ptx_abi;
use std::collections::HashMap;

mod opcode;
pub mod vars;

/// Where dynamic (`.extern .shared` arrays) shared memory starts until the static size is known.
const DYN_SHARED: u32 = 0x8000_0000;

struct P<'a> {
    src: &'a str,
    t: &'a [Token],
    i: usize,
    funcs: Vec<Func>,
    func_index: HashMap<String, u32>,
    /// Module-scope symbols.
    globals: HashMap<String, Sym>,
    shared_size: u32,
    /// The static `.shared` variables, for the per-kernel bound (shared_budget).
    shared_vars: Vec<SharedVar>,
    /// The function whose body is being read.
    current: Option<u32>,
    const_data: Vec<u8>,
    global_data: Vec<u8>,
}

type R<T> = Result<T, PtxError>;

impl<'a> P<'a> {
    fn line(&self) -> u32 {
        self.t.get(self.i).or(self.t.last()).map(|t| t.line).unwrap_or(1)
    }

    fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        Err(PtxError::new(self.line(), msg))
    }

    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i).map(|t| &t.tok)
    }

    fn next(&mut self) -> R<Tok> {
        match self.t.get(self.i) {
            Some(t) => {
                self.i += 1;
                Ok(t.tok.clone())
            }
            None => self.err("unexpected end of input"),
        }
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> R<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            let got = self.peek().cloned();
            self.err(format!("expected `{c}`, found {}", describe(got.as_ref())))
        }
    }

    fn ident(&mut self) -> R<String> {
        match self.next()? {
            Tok::Ident(s) => Ok(s),
            t => {
                self.i -= 1;
                self.err(format!("expected a name, found {}", describe(Some(&t))))
            }
        }
    }

    fn peek_ident(&self) -> Option<&str> {
        match self.peek() {
            Some(Tok::Ident(s)) => Some(s),
            _ => None,
        }
    }

    fn int(&mut self) -> R<u64> {
        let neg = self.eat_punct('-');
        match self.next()? {
            Tok::Int(v) => Ok(if neg { v.wrapping_neg() } else { v }),
            t => {
                self.i -= 1;
                self.err(format!("expected an integer, found {}", describe(Some(&t))))
            }
        }
    }

    /// The `MAJOR.MINOR` after `.version`, as spelled (the lexer reads `7.10` as a float).
    fn version(&self) -> R<String> {
        let line = self.line();
        let text = self.src.lines().nth(line as usize - 1).unwrap_or("");
        let after = text.trim().strip_prefix(".version").unwrap_or("");
        Ok(after.split("//").next().unwrap_or("").trim().to_string())
    }

    /// A count (register range, array size) that fits in 32 bits.
    fn count(&mut self) -> R<u32> {
        let v = self.int()?;
        u32::try_from(v).or_else(|_| self.err(format!("{v} is larger than 32 bits")))
    }

    /// Skip the rest of a source line (debug directives without `;`).
    fn skip_line(&mut self) {
        let l = self.line();
        while self.i < self.t.len() && self.t[self.i].line == l {
            self.i += 1;
        }
    }

    fn skip_to_semicolon(&mut self) -> R<()> {
        while !self.eat_punct(';') {
            self.next()?;
        }
        Ok(())
    }

    fn module(&mut self) -> R<()> {
        while self.i < self.t.len() {
            let line = self.line();
            let word = match self.next()? {
                Tok::Ident(w) => w,
                Tok::Punct(';') => continue,
                t => return Err(PtxError::new(line, format!("unexpected {} at module scope", describe(Some(&t))))),
            };
            match word.as_str() {
                ".version" => {
                    let v = self.version()?;
                    ptx_abi::check_version(&v).map_err(|e| PtxError::new(line, e))?;
                    self.skip_line();
                }
                ".target" | ".address_size" | ".file" | ".loc" | ".section" => self.skip_line(),
                ".pragma" => self.skip_to_semicolon()?,
                ".visible" | ".extern" | ".weak" | ".common" => {
                    let external = word == ".extern";
                    let what = self.ident()?;
                    self.declaration(&what, external)?;
                }
                ".entry" | ".func" | ".global" | ".const" | ".shared" => self.declaration(&word, false)?,
                _ => {
                    return Err(PtxError::new(line, format!("unknown directive or statement `{word}` at module scope")))
                }
            }
        }
        shared_budget::check(&self.funcs, &self.shared_vars)?;
        shared_budget::check_module(&self.shared_vars)?;
        // Dynamic shared memory goes after the static variables (at most 227 KiB: no overflow).
        let dyn_base = self.shared_size.next_multiple_of(16);
        for f in &mut self.funcs {
            for inst in &mut f.body {
                for o in &mut inst.ops {
                    patch_dyn(o, dyn_base);
                }
            }
        }
        self.shared_size = dyn_base;
        Ok(())
    }

    fn declaration(&mut self, what: &str, external: bool) -> R<()> {
        match what {
            ".entry" | ".func" => self.function(what == ".entry", external),
            ".global" | ".const" | ".shared" => {
                let space = match what {
                    ".global" => Space::Global,
                    ".const" => Space::Const,
                    _ => Space::Shared,
                };
                let v = self.var_decl(space)?;
                self.module_var(v, external)
            }
            _ => self.err(format!("expected .entry, .func or a variable after the linkage, found `{what}`")),
        }
    }

    fn function(&mut self, is_entry: bool, external: bool) -> R<()> {
        let line = self.line();
        let mut names: HashMap<String, Sym> = HashMap::new();
        let mut area = 0u32;
        let mut rets = Vec::new();
        if !is_entry && self.is_punct('(') {
            rets = self.param_list(&mut area, &mut names)?;
        }
        let name = self.ident()?;
        let params = if self.is_punct('(') { self.param_list(&mut area, &mut names)? } else { Vec::new() };
        // Performance directives.
        while let Some(w) = self.peek_ident().map(str::to_string) {
            match w.as_str() {
                ".maxntid" | ".reqntid" | ".minnctapersm" | ".maxnreg" | ".maxclusterrank" | ".reqnctapercluster"
                | ".explicitcluster" | ".noreturn" | ".pragma" => {
                    self.i += 1;
                    while self.peek().is_some_and(|t| matches!(t, Tok::Int(_) | Tok::Punct(',') | Tok::Str(_))) {
                        self.i += 1;
                    }
                    // `.pragma "...";` ends in its own `;`; after the others a `;` ends a
                    // prototype (`.func f(...) .noreturn;`), which the caller reads.
                    if w == ".pragma" {
                        self.eat_punct(';');
                    }
                }
                _ => break,
            }
        }
        let index = match self.func_index.get(&name) {
            Some(&i) => i,
            None => {
                let i = self.funcs.len() as u32;
                self.funcs.push(Func {
                    name: name.clone(),
                    is_entry,
                    external: true,
                    params: params.clone(),
                    rets: rets.clone(),
                    param_size: area,
                    local_size: 0,
                    nregs: 0,
                    body: Vec::new(),
                    line,
                });
                self.func_index.insert(name.clone(), i);
                i
            }
        };
        if self.eat_punct(';') {
            return Ok(());
        }
        if external {
            return self.err(format!("`.extern` function `{name}` has a body"));
        }
        if !self.funcs[index as usize].external {
            return self.err(format!("function `{name}` is defined twice"));
        }
        let mut b = Body {
            scopes: Scopes::new(names),
            area,
            local: 0,
            body: Vec::new(),
            labels: HashMap::new(),
            fixups: Vec::new(),
        };
        self.expect_punct('{')?;
        self.current = Some(index);
        let read = self.block(&mut b);
        self.current = None;
        read?;
        for (at, op, label, l) in &b.fixups {
            let target = *b.labels.get(label).ok_or_else(|| PtxError::new(*l, format!("undefined label `{label}`")))?;
            b.body[*at].ops[*op] = Opnd::Label(target);
        }
        b.body.push(Inst {
            op: Op::Ret,
            ty: Ty::B32,
            ty2: Ty::B32,
            rnd: Rnd::None,
            sat: false,
            ftz: false,
            vec: 1,
            pred: None,
            ops: Vec::new(),
            line: self.line(),
        });
        let f = &mut self.funcs[index as usize];
        *f = Func {
            name,
            is_entry,
            external: false,
            params,
            rets,
            param_size: b.area,
            local_size: b.local,
            nregs: b.scopes.regs,
            body: b.body,
            line,
        };
        Ok(())
    }

    /// Statements up to the matching `}`.
    fn block(&mut self, b: &mut Body) -> R<()> {
        loop {
            let line = self.line();
            match self.peek().cloned() {
                None => return self.err("unexpected end of input inside a function body"),
                Some(Tok::Punct('}')) => {
                    self.i += 1;
                    return Ok(());
                }
                Some(Tok::Punct('{')) => {
                    self.i += 1;
                    b.scopes.push();
                    self.block(b)?;
                    b.scopes.pop();
                }
                Some(Tok::Punct(';')) => self.i += 1,
                Some(Tok::Ident(w)) if w.starts_with('.') => {
                    self.i += 1;
                    match w.as_str() {
                        ".reg" => self.reg_decl(b, line)?,
                        ".local" => self.body_var(b, Space::Local)?,
                        ".param" => self.body_var(b, Space::Param)?,
                        ".shared" => self.body_var(b, Space::Shared)?,
                        ".loc" | ".file" => self.skip_line(),
                        ".pragma" => self.skip_to_semicolon()?,
                        _ => return Err(PtxError::new(line, format!("unknown directive `{w}` in a function body"))),
                    }
                }
                Some(Tok::Ident(w)) if self.t.get(self.i + 1).map(|t| &t.tok) == Some(&Tok::Punct(':')) => {
                    self.i += 2;
                    if b.labels.insert(w.clone(), b.body.len() as u32).is_some() {
                        return Err(PtxError::new(line, format!("label `{w}` defined twice")));
                    }
                }
                Some(_) => {
                    let inst = self.instruction(b)?;
                    b.body.push(inst);
                }
            }
        }
    }

    /// What `name` means: a name of the body's scopes (a register range member gets its
    /// register now), else a module symbol.
    fn lookup(&self, b: &mut Body, name: &str) -> R<Option<Sym>> {
        let local = b.scopes.resolve(name).map_err(|e| PtxError::new(self.line(), e))?;
        Ok(local.or_else(|| self.globals.get(name).copied()))
    }

    fn reg(&self, b: &mut Body, name: &str) -> R<u32> {
        match self.lookup(b, name)?.and_then(sym_reg) {
            Some(r) => Ok(r),
            None => self.err(format!("undeclared register `{name}`")),
        }
    }

    fn instruction(&mut self, b: &mut Body) -> R<Inst> {
        let line = self.line();
        let mut pred = None;
        if self.eat_punct('@') {
            let neg = self.eat_punct('!');
            let name = self.ident()?;
            pred = Some((self.reg(b, &name)?, neg));
        }
        let opcode = self.ident()?;
        let mut parts = opcode.split('.');
        let base = parts.next().unwrap_or("");
        let mods: Vec<&str> = parts.collect();
        let mut inst = Inst {
            op: Op::Nop,
            ty: Ty::B32,
            ty2: Ty::B32,
            rnd: Rnd::None,
            sat: false,
            ftz: false,
            vec: 1,
            pred,
            ops: Vec::new(),
            line,
        };
        let sel = self.modifiers(&mut inst, base, &opcode, &mods)?;
        let ty = sel.types.first().copied();
        inst.ty = ty.unwrap_or(Ty::B32);
        inst.ty2 = sel.types.get(1).copied().unwrap_or(inst.ty);
        let need_ty = |p: &Self| -> R<()> {
            if ty.is_none() {
                p.err(format!("`{opcode}` needs a type"))
            } else {
                Ok(())
            }
        };
        inst.op = self.operation(base, &opcode, &mods, &sel, line)?;
        match inst.op {
            Op::Bra | Op::Ret | Op::Exit | Op::Call | Op::Bar | Op::Nop | Op::Trap | Op::Activemask => {}
            _ => need_ty(self)?,
        }
        if let Op::Call = inst.op {
            self.call_operands(b, &mut inst)?;
            return Ok(inst);
        }
        if !self.is_punct(';') {
            loop {
                let op = if inst.op == Op::Bra {
                    let name = self.ident()?;
                    b.fixups.push((b.body.len(), inst.ops.len(), name, line));
                    Opnd::Label(0)
                } else {
                    self.operand(b)?
                };
                inst.ops.push(op);
                if !self.eat_punct(',') {
                    break;
                }
            }
        }
        self.expect_punct(';')?;
        self.check_arity(&inst)?;
        Ok(inst)
    }

    fn check_arity(&self, inst: &Inst) -> R<()> {
        let n = inst.ops.len();
        let ok = match inst.op {
            Op::Mov | Op::Ld(_) | Op::St(_) | Op::Cvta { .. } | Op::Abs | Op::Neg | Op::Not | Op::Cnot | Op::Cvt => {
                n == 2
            }
            Op::Sqrt | Op::Rcp | Op::Rsqrt | Op::Ex2 | Op::Lg2 | Op::Sin | Op::Cos | Op::Tanh => n == 2,
            Op::Clz | Op::Popc | Op::Brev | Op::Testp(_) => n == 2,
            Op::Add | Op::Sub | Op::Mul(_) | Op::Div | Op::Rem | Op::Min | Op::Max => n == 3,
            Op::And | Op::Or | Op::Xor | Op::Shl | Op::Shr | Op::Copysign => n == 3,
            Op::Setp(_, None) => n == 3,
            Op::Setp(_, Some(_)) => n == 4,
            Op::Mad(_) | Op::Fma | Op::Selp | Op::Bfe | Op::Prmt | Op::Shf { .. } => n == 4,
            Op::Bfi => n == 5,
            Op::Atom(_, AtomOp::Cas) => n == 4,
            Op::Atom(..) => n == 3,
            Op::Red(..) => n == 2,
            Op::Shfl(_) => n == 5 || n == 4,
            Op::Vote(_) => n == 3,
            Op::Activemask => n == 1,
            Op::Bra => n == 1,
            Op::Bar => n == 1 || n == 2,
            Op::Ret | Op::Exit | Op::Trap => n == 0,
            Op::Nop | Op::Call => true,
        };
        if ok {
            Ok(())
        } else {
            Err(PtxError::new(inst.line, format!("wrong number of operands ({n}) for {:?}", inst.op)))
        }
    }

    fn call_operands(&mut self, b: &mut Body, inst: &mut Inst) -> R<()> {
        let mut rets = Vec::new();
        if self.eat_punct('(') {
            loop {
                rets.push(self.operand(b)?);
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
            self.expect_punct(',')?;
        }
        let name = self.ident()?;
        let f = *self
            .func_index
            .get(&name)
            .ok_or_else(|| PtxError::new(inst.line, format!("call of undeclared function `{name}`")))?;
        let mut args = Vec::new();
        if self.eat_punct(',') {
            self.expect_punct('(')?;
            if !self.eat_punct(')') {
                loop {
                    args.push(self.operand(b)?);
                    if self.eat_punct(')') {
                        break;
                    }
                    self.expect_punct(',')?;
                }
            }
        }
        self.expect_punct(';')?;
        inst.ops = vec![Opnd::Vec(rets), Opnd::Sym(Sym::Func(f)), Opnd::Vec(args)];
        Ok(())
    }

    fn operand(&mut self, b: &mut Body) -> R<Opnd> {
        let line = self.line();
        match self.next()? {
            Tok::Punct('[') => {
                let mut base = None;
                let mut sym = None;
                let mut off: i64 = 0;
                match self.next()? {
                    Tok::Ident(n) => match self.lookup(b, &n)? {
                        Some(s) if sym_reg(s).is_some() => base = sym_reg(s),
                        Some(s) => sym = Some(s),
                        None => return Err(PtxError::new(line, format!("undeclared name `{n}` in an address"))),
                    },
                    Tok::Int(v) => off = v as i64,
                    t => return Err(PtxError::new(line, format!("bad address: {}", describe(Some(&t))))),
                }
                while !self.eat_punct(']') {
                    let neg = if self.eat_punct('+') {
                        self.eat_punct('-')
                    } else if self.eat_punct('-') {
                        true
                    } else {
                        return self.err("expected `+`, `-` or `]` in an address");
                    };
                    let v = self.int()? as i64;
                    off = off.wrapping_add(if neg { v.wrapping_neg() } else { v });
                }
                Ok(Opnd::Addr(base, sym, off))
            }
            Tok::Punct('{') => {
                let mut v = Vec::new();
                loop {
                    v.push(self.operand(b)?);
                    if self.eat_punct('}') {
                        break;
                    }
                    self.expect_punct(',')?;
                }
                Ok(Opnd::Vec(v))
            }
            Tok::Punct('-') => match self.next()? {
                Tok::Int(v) => Ok(Opnd::Int(v.wrapping_neg())),
                Tok::F32(v) => Ok(Opnd::F32(v ^ 0x8000_0000)),
                Tok::F64(v) => Ok(Opnd::F64(v ^ (1 << 63))),
                t => Err(PtxError::new(line, format!("bad operand after `-`: {}", describe(Some(&t))))),
            },
            Tok::Int(v) => Ok(Opnd::Int(v)),
            Tok::F32(v) => Ok(Opnd::F32(v)),
            Tok::F64(v) => Ok(Opnd::F64(v)),
            Tok::Ident(n) if n == "_" => Ok(Opnd::Sink),
            Tok::Ident(n) if n == "WARP_SZ" => Ok(Opnd::Int(32)),
            Tok::Ident(n) => {
                if let Some(s) = Sreg::parse(&n) {
                    return Ok(Opnd::Sreg(s));
                }
                match self.lookup(b, &n)? {
                    Some(s) if sym_reg(s).is_some() => {
                        let r = sym_reg(s).expect("a register");
                        if self.eat_punct('|') {
                            let q = self.ident()?;
                            return Ok(Opnd::Pair(r, self.reg(b, &q)?));
                        }
                        Ok(Opnd::Reg(r))
                    }
                    Some(s) => Ok(Opnd::Sym(s)),
                    None => match self.func_index.get(&n) {
                        Some(f) => Ok(Opnd::Sym(Sym::Func(*f))),
                        None => Err(PtxError::new(line, format!("undeclared name `{n}`"))),
                    },
                }
            }
            t => Err(PtxError::new(line, format!("bad operand: {}", describe(Some(&t))))),
        }
    }
}

struct Body {
    scopes: Scopes,
    area: u32,
    local: u32,
    body: Vec<Inst>,
    labels: HashMap<String, u32>,
    fixups: Vec<(usize, usize, String, u32)>,
}

fn patch_dyn(o: &mut Opnd, base: u32) {
    match o {
        Opnd::Sym(Sym::Shared(x)) | Opnd::Addr(_, Some(Sym::Shared(x)), _) if *x >= DYN_SHARED => *x = base,
        Opnd::Vec(v) => v.iter_mut().for_each(|o| patch_dyn(o, base)),
        _ => {}
    }
}

fn describe(t: Option<&Tok>) -> String {
    match t {
        None => "end of input".into(),
        Some(Tok::Ident(s)) => format!("`{s}`"),
        Some(Tok::Int(v)) => format!("`{v}`"),
        Some(Tok::F32(v)) => format!("`0f{v:08X}`"),
        Some(Tok::F64(v)) => format!("`0d{v:016X}`"),
        Some(Tok::Str(s)) => format!("{s:?}"),
        Some(Tok::Punct(c)) => format!("`{c}`"),
    }
}

pub fn parse(src: &str) -> Result<Module, PtxError> {
    let toks = lex(src)?;
    let mut p = P {
        src,
        t: &toks,
        i: 0,
        funcs: Vec::new(),
        func_index: HashMap::new(),
        globals: HashMap::new(),
        shared_size: 0,
        shared_vars: Vec::new(),
        current: None,
        const_data: Vec::new(),
        global_data: Vec::new(),
    };
    p.module()?;
    Ok(Module {
        funcs: p.funcs,
        func_index: p.func_index,
        shared_size: p.shared_size,
        const_data: p.const_data,
        global_data: p.global_data,
    })
}
