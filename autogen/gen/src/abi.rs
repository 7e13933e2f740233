//! AMD ABI bindings: `amd/kfd.rs` (kfd_ioctl.h), `amd/amdgpu_drm.rs` (amdgpu_drm.h), `amd/hsa.rs`
//! (HSA AQL packet and AMD queue structures) and `amd/kd.rs` (LLVM's AMDHSA kernel descriptor).
//!
//! Structures come from bindgen (libclang 22, loaded from a fixed path so the output does not
//! depend on which libclang happens to be found first). Every structure carries compile-time
//! `assert!`s of its size, alignment and field offsets. Ioctl request numbers are function-like
//! macros that bindgen cannot evaluate: their names are read from the header text and their values
//! are printed by a small C program compiled with the system C compiler against the pinned header
//! (an oracle independent of libclang; its `sizeof` is also checked against the Rust structure).
//! The kernel descriptor header is macro-heavy C++: see [`kd`].

mod kd;

use crate::inputs::{Input, Inputs, LINUX_SOURCE, LINUX_VERSION};
use crate::{banner, Generated};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const GENERATOR: &str = "abi";

/// The libclang that bindgen loads (package libclang1-22). Loaded through the LLVM directory so
/// that libclang finds its own resource headers (stddef.h, stdbool.h) beside it.
const LIBCLANG: &str = "/usr/lib/llvm-22/lib/libclang-22.so.1";
/// The clang driver bindgen asks for default include paths, and the C++ oracle of `kd`.
const CLANG: &str = "/usr/bin/clang-22";
/// The C compiler of the ioctl-number oracle (gcc on Debian: independent of libclang).
const CC: &str = "cc";

pub const KFD_IOCTL_H: Input = Input {
    package: LINUX_SOURCE,
    version: LINUX_VERSION,
    path: "include/uapi/linux/kfd_ioctl.h",
    sha256: "7ba0d8aed030cf2ea061253b148bc5a06c38c1e60739b9a6d918ddac921de70d",
};
/// Included by kfd_ioctl.h (`<drm/drm.h>`).
pub const KERNEL_DRM_H: Input = Input {
    package: LINUX_SOURCE,
    version: LINUX_VERSION,
    path: "include/uapi/drm/drm.h",
    sha256: "3ab6ac01bf91067aed96b70d7fa7847a86e7f726d74278151f085143688659cc",
};
pub const AMDGPU_DRM_H: Input = Input {
    package: "libdrm-dev",
    version: "2.4.114-1+b1",
    path: "/usr/include/libdrm/amdgpu_drm.h",
    sha256: "3ee66ad4e53aaf3b98d255d3f56601b2fcb3db609467a20f73e90c0165d0e054",
};
/// Included by amdgpu_drm.h (`"drm.h"`): DRM_IOCTL_BASE, DRM_COMMAND_BASE, DRM_IOW.
pub const LIBDRM_DRM_H: Input = Input {
    package: "libdrm-dev",
    version: "2.4.114-1+b1",
    path: "/usr/include/libdrm/drm.h",
    sha256: "62a2c077af176d166821e6f185d448e532b30268969bd92cfec6a2f30b94cc92",
};
const HSA_PACKAGE: &str = "libhsa-runtime-dev";
const HSA_VERSION: &str = "5.2.3-3";
pub const HSA_H: Input = Input {
    package: HSA_PACKAGE,
    version: HSA_VERSION,
    path: "/usr/include/hsa/hsa.h",
    sha256: "53c42a7879eca0380582b1f4f162dd4376236813f252fd40922bf7266c5596b8",
};
pub const AMD_HSA_COMMON_H: Input = Input {
    package: HSA_PACKAGE,
    version: HSA_VERSION,
    path: "/usr/include/hsa/amd_hsa_common.h",
    sha256: "abfccdd1eabe77047b16743ce0f729577c99caf8c7b28b880232602a5b46a17f",
};
pub const AMD_HSA_QUEUE_H: Input = Input {
    package: HSA_PACKAGE,
    version: HSA_VERSION,
    path: "/usr/include/hsa/amd_hsa_queue.h",
    sha256: "f3f5555290cd89b5b1220adc074d2fcfd7c6010991a3f38fb231b1526d01119f",
};
pub const AMD_HSA_SIGNAL_H: Input = Input {
    package: HSA_PACKAGE,
    version: HSA_VERSION,
    path: "/usr/include/hsa/amd_hsa_signal.h",
    sha256: "1437a06675900b4e06b67a878d7381b01f80a1549aa9d84d63a3306ee6b91460",
};
pub const AMD_HSA_KERNEL_CODE_H: Input = Input {
    package: HSA_PACKAGE,
    version: HSA_VERSION,
    path: "/usr/include/hsa/amd_hsa_kernel_code.h",
    sha256: "0b9e45f1ae3cd10b16d7afa2c0df53213ddc2a71a1e86a1ea04684bf76958788",
};
pub const KERNEL_DESCRIPTOR_H: Input = Input {
    package: "llvm-22-dev",
    version: "1:22.1.8-1~deb12u1",
    path: "/usr/lib/llvm-22/include/llvm/Support/AMDHSAKernelDescriptor.h",
    sha256: "867b8bfabc6d38e97fe83a4ea5bed76f2e29306ddfde5be9a42ffed6fa68081f",
};

/// The ioctls of amdgpu_drm.h that the driver uses on the render node (their structures are the
/// ones allowlisted below).
const DRM_IOCTLS: &[&str] = &["DRM_IOCTL_AMDGPU_INFO"];

/// Lint allowances every generated binding file starts with.
const ALLOWS: &str =
    "#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, clippy::all)]\n";

pub fn generate(inputs: &Inputs) -> Result<Vec<Generated>, String> {
    Ok(vec![kfd(inputs)?, amdgpu_drm(inputs)?, hsa(inputs)?, kd::generate(inputs)?])
}

/// Checks every input's hash and returns the path of the first (the header to parse).
fn checked(inputs: &Inputs, files: &[&Input]) -> Result<Vec<PathBuf>, String> {
    files
        .iter()
        .map(|i| {
            inputs.read(i)?;
            inputs.locate(i)
        })
        .collect()
}

fn kfd(inputs: &Inputs) -> Result<Generated, String> {
    let paths = checked(inputs, &[&KFD_IOCTL_H, &KERNEL_DRM_H])?;
    let header = &paths[0];
    // <drm/drm.h> from the pinned kernel tree: `.../include/uapi/linux/kfd_ioctl.h` -> `.../include/uapi`.
    let uapi = header.parent().and_then(Path::parent).ok_or("kfd_ioctl.h has no include root")?.to_path_buf();
    // `__user` is stripped by the kernel's headers_install; the raw uapi tree still has it.
    let args = [format!("-I{}", uapi.display()), "-D__user=".to_string()];
    let body = bindgen(header, &args, |b| b.allowlist_file(regex_path(header)))?;
    let text = std::fs::read_to_string(header).map_err(|e| format!("{}: {e}", header.display()))?;
    let ioctls = ioctl_macros(&text, "AMDKFD_IOC_");
    if ioctls.is_empty() {
        return Err("kfd_ioctl.h: no AMDKFD_IOC_* request found".into());
    }
    let values = oracle(header, &args, &ioctls)?;
    // Object-like macros bindgen cannot evaluate (they expand function-like macros, e.g.
    // KFD_EC_MASK_QUEUE): the same oracle evaluates them as 64-bit values.
    let derived: Vec<String> = object_macros(&text)
        .into_iter()
        .filter(|n| !n.ends_with("_H_INCLUDED") && !ioctls.iter().any(|m| &m.name == n))
        .filter(|n| !body.contains(&format!("pub const {n}:")))
        .collect();
    let derived_values = oracle_u64(header, &args, &derived)?;
    let mut out = file_head(
        &[&KFD_IOCTL_H, &KERNEL_DRM_H],
        "KFD ioctl ABI (`/dev/kfd`): argument structures, flags and request numbers of the Linux kernel's\n\
         `include/uapi/linux/kfd_ioctl.h`.",
    );
    out.push_str(&body);
    if !derived.is_empty() {
        out.push_str("\n// Macros built from function-like macros, evaluated by the C compiler.\n");
        for (n, v) in derived.iter().zip(derived_values) {
            out.push_str(&format!("pub const {n}: u64 = {v:#018x};\n"));
        }
    }
    out.push_str(&ioctl_consts(&ioctls, &values, "AMDKFD_IOCTLS"));
    Ok(Generated { path: "src/amd/kfd.rs".into(), text: rustfmt(&out)? })
}

fn amdgpu_drm(inputs: &Inputs) -> Result<Generated, String> {
    let paths = checked(inputs, &[&AMDGPU_DRM_H, &LIBDRM_DRM_H])?;
    let header = &paths[0];
    let dir = header.parent().ok_or("amdgpu_drm.h has no directory")?;
    let args = [format!("-I{}", dir.display())];
    let body = bindgen(header, &args, |b| {
        b.allowlist_type("drm_amdgpu_info")
            .allowlist_type("drm_amdgpu_info_device")
            .allowlist_type("drm_amdgpu_info_hw_ip")
            .allowlist_type("drm_amdgpu_info_firmware")
            .allowlist_var("AMDGPU_INFO_.*")
            .allowlist_var("AMDGPU_HW_IP_.*")
            .allowlist_var("AMDGPU_IDS_FLAGS_.*")
            .allowlist_var("DRM_AMDGPU_INFO")
            .allowlist_var("DRM_COMMAND_BASE")
    })?;
    let text = std::fs::read_to_string(header).map_err(|e| format!("{}: {e}", header.display()))?;
    let ioctls: Vec<IoctlMacro> = ioctl_macros(&text, "DRM_IOCTL_AMDGPU_")
        .into_iter()
        .filter(|m| DRM_IOCTLS.contains(&m.name.as_str()))
        .collect();
    if ioctls.len() != DRM_IOCTLS.len() {
        return Err(format!("amdgpu_drm.h: expected ioctls {DRM_IOCTLS:?}, found {}", ioctls.len()));
    }
    let values = oracle(header, &args, &ioctls)?;
    let mut out = file_head(
        &[&AMDGPU_DRM_H, &LIBDRM_DRM_H],
        "amdgpu DRM ABI (render node): the INFO query structures, query ids and hardware IP types of libdrm's\n\
         `amdgpu_drm.h`, and the DRM_IOCTL_AMDGPU_INFO request number.",
    );
    out.push_str(&body);
    out.push_str(&ioctl_consts(&ioctls, &values, "DRM_AMDGPU_IOCTLS"));
    Ok(Generated { path: "src/amd/amdgpu_drm.rs".into(), text: rustfmt(&out)? })
}

fn hsa(inputs: &Inputs) -> Result<Generated, String> {
    let all = [&HSA_H, &AMD_HSA_COMMON_H, &AMD_HSA_QUEUE_H, &AMD_HSA_SIGNAL_H, &AMD_HSA_KERNEL_CODE_H];
    let paths = checked(inputs, &all)?;
    // One translation unit over the three headers that define what we bind.
    let mut unit = String::new();
    for p in &paths[2..] {
        unit.push_str(&format!("#include \"{}\"\n", p.display()));
    }
    let body = bindgen_unit("hsa_unit.h", &unit, &[], |b| {
        b.allowlist_type("hsa_kernel_dispatch_packet_t")
            .allowlist_type("hsa_packet_header_t")
            .allowlist_type("hsa_packet_header_width_t")
            .allowlist_type("hsa_packet_type_t")
            .allowlist_type("hsa_fence_scope_t")
            .allowlist_type("hsa_kernel_dispatch_packet_setup_t")
            .allowlist_type("hsa_kernel_dispatch_packet_setup_width_t")
            .allowlist_type("amd_queue_t")
            .allowlist_type("amd_queue_properties_t")
            .allowlist_type("amd_signal_t")
            .allowlist_type("amd_signal_kind_t")
            .allowlist_type("amd_kernel_code_properties_t")
            .allowlist_var("AMD_QUEUE_ALIGN_BYTES")
            .allowlist_var("AMD_SIGNAL_ALIGN_BYTES")
    })?;
    let mut out = file_head(
        &all,
        "HSA AQL: the kernel dispatch packet and its header/setup fields (`hsa.h`), the AMD queue and\n\
         signal structures (`amd_hsa_queue.h`, `amd_hsa_signal.h`) and the kernel code property bits\n\
         (`amd_hsa_kernel_code.h`).",
    );
    out.push_str(&body);
    Ok(Generated { path: "src/amd/hsa.rs".into(), text: rustfmt(&out)? })
}

/// The banner, module doc and lint allowances of a generated file.
fn file_head(inputs: &[&Input], doc: &str) -> String {
    let mut s = banner(GENERATOR, inputs);
    s.push('\n');
    for line in doc.lines() {
        s.push_str("//! ");
        s.push_str(line.trim_start());
        s.push('\n');
    }
    s.push('\n');
    s.push_str(ALLOWS);
    s.push('\n');
    s
}

/// A regex matching exactly this path (for bindgen's allowlist_file).
fn regex_path(p: &Path) -> String {
    let mut s = String::new();
    for c in p.display().to_string().chars() {
        if !c.is_ascii_alphanumeric() && c != '/' && c != '_' {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

/// Points clang-sys at the pinned libclang and clang (once, before bindgen loads it).
fn pin_libclang() -> Result<(), String> {
    for (var, path, pkg) in [("LIBCLANG_PATH", LIBCLANG, "libclang1-22"), ("CLANG_PATH", CLANG, "clang-22")] {
        if !Path::new(path).exists() {
            return Err(format!("{path} missing: apt-get install {pkg}"));
        }
        // Edition 2021: set_var is safe; the generator is single-threaded here.
        std::env::set_var(var, path);
    }
    Ok(())
}

fn bindgen(
    header: &Path,
    args: &[String],
    f: impl FnOnce(bindgen::Builder) -> bindgen::Builder,
) -> Result<String, String> {
    run_bindgen(bindgen::Builder::default().header(header.display().to_string()), args, f)
}

fn bindgen_unit(
    name: &str,
    contents: &str,
    args: &[String],
    f: impl FnOnce(bindgen::Builder) -> bindgen::Builder,
) -> Result<String, String> {
    run_bindgen(bindgen::Builder::default().header_contents(name, contents), args, f)
}

fn run_bindgen(
    builder: bindgen::Builder,
    args: &[String],
    f: impl FnOnce(bindgen::Builder) -> bindgen::Builder,
) -> Result<String, String> {
    pin_libclang()?;
    let target = bindgen::RustTarget::stable(82, 0).map_err(|e| format!("bindgen rust target: {e}"))?;
    let builder = builder
        .clang_args(["--target=x86_64-unknown-linux-gnu", "-std=gnu11"])
        .clang_args(args)
        .rust_target(target)
        .use_core()
        .ctypes_prefix("core::ffi")
        .layout_tests(true)
        .generate_comments(false)
        .derive_default(true)
        .default_enum_style(bindgen::EnumVariation::Consts)
        .prepend_enum_name(false)
        .formatter(bindgen::Formatter::Prettyplease);
    let bindings = f(builder).generate().map_err(|e| format!("bindgen: {e}"))?;
    let text = bindings.to_string();
    let text: String = text.lines().filter(|l| !l.starts_with("/* automatically generated by rust-bindgen")).fold(
        String::new(),
        |mut s, l| {
            s.push_str(l);
            s.push('\n');
            s
        },
    );
    layout_asserts(&text)
}

/// Rewrites bindgen's compile-time layout checks (`["Size of T"][size_of::<T>() - 8usize];`, an
/// out-of-bounds index when the layout differs) as plain `assert!(size_of::<T>() == 8, "Size of T");`.
fn layout_asserts(text: &str) -> Result<String, String> {
    const OPEN: &str = "const _: () = {\n";
    const ALLOW: &str = "#[allow(clippy::unnecessary_operation, clippy::identity_op)]\n";
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let mut before = &rest[..start];
        if let Some(b) = before.strip_suffix(ALLOW) {
            before = b;
        }
        out.push_str(before);
        let body_start = start + OPEN.len();
        let end = rest[body_start..].find("\n};\n").ok_or("bindgen: unterminated layout block")? + body_start;
        out.push_str(OPEN);
        for stmt in split_statements(&rest[body_start..end]) {
            out.push_str("    ");
            out.push_str(&layout_assert(&stmt)?);
            out.push('\n');
        }
        out.push_str("};\n");
        rest = &rest[end + "\n};\n".len()..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Splits at `;` outside brackets and string literals; whitespace runs become one space.
fn split_statements(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut depth, mut in_str) = (0i32, false);
    for c in s.chars() {
        match c {
            '"' => in_str = !in_str,
            '[' | '(' | '{' if !in_str => depth += 1,
            ']' | ')' | '}' if !in_str => depth -= 1,
            ';' if !in_str && depth == 0 => {
                out.push(cur.split_whitespace().collect::<Vec<_>>().join(" "));
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.retain(|s| !s.is_empty());
    out
}

fn layout_assert(stmt: &str) -> Result<String, String> {
    let bad = || format!("bindgen: unexpected layout check `{stmt}`");
    // `["msg"][expr - Nusize]`, possibly formatted as `[ "msg", ][...]`.
    let s = stmt.strip_prefix('[').ok_or_else(bad)?.trim_start().strip_prefix('"').ok_or_else(bad)?;
    let (msg, rest) = s.split_once('"').ok_or_else(bad)?;
    let rest = rest.trim_start_matches([',', ' ']).strip_prefix("][").ok_or_else(bad)?;
    let expr = rest.strip_suffix(']').ok_or_else(bad)?;
    let (lhs, rhs) = expr.rsplit_once(" - ").ok_or_else(bad)?;
    let n = rhs.strip_suffix("usize").ok_or_else(bad)?;
    n.parse::<u64>().map_err(|_| bad())?;
    Ok(format!("assert!({lhs} == {n}, \"{msg}\");"))
}

/// An ioctl request macro as written in a header, e.g.
/// `#define AMDKFD_IOC_GET_VERSION AMDKFD_IOR(0x01, struct kfd_ioctl_get_version_args)`.
pub struct IoctlMacro {
    pub name: String,
    /// The request macro invoked and its arguments, whitespace-normalised:
    /// `AMDKFD_IOR(0x01, struct kfd_ioctl_get_version_args)`.
    pub definition: String,
    /// The argument structure, if the request carries one.
    pub arg_struct: Option<String>,
}

/// Every `#define PREFIX...` whose body is an `_IO*`-style request macro, in header order.
fn ioctl_macros(header: &str, prefix: &str) -> Vec<IoctlMacro> {
    let joined = header.replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let mut words = line.split_whitespace();
        if words.next() != Some("#define") {
            continue;
        }
        let Some(name) = words.next() else { continue };
        if !name.starts_with(prefix) || name.contains('(') {
            continue;
        }
        let body = words.collect::<Vec<_>>().join(" ");
        let Some(open) = body.find('(') else { continue };
        let callee = &body[..open];
        let is_request = ["_IO", "_IOR", "_IOW", "_IOWR"].iter().any(|s| callee.ends_with(s));
        if !is_request {
            continue;
        }
        let definition = body.replace("( ", "(").replace(" )", ")");
        let arg_struct = definition
            .split_once("struct ")
            .map(|(_, s)| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>());
        out.push(IoctlMacro { name: name.to_string(), definition, arg_struct });
    }
    out
}

/// Compiles and runs a C program that prints each request's value, using the system C compiler.
fn oracle(header: &Path, args: &[String], ioctls: &[IoctlMacro]) -> Result<Vec<u32>, String> {
    let mut src = format!("#include <stdio.h>\n#include \"{}\"\nint main(void) {{\n", header.display());
    for m in ioctls {
        src.push_str(&format!("    printf(\"%s 0x%08x\\n\", \"{0}\", (unsigned int)({0}));\n", m.name));
    }
    src.push_str("    return 0;\n}\n");
    let stdout = compile_and_run(CC, args, "oracle.c", &src)?;
    let mut values = Vec::new();
    for (m, line) in ioctls.iter().zip(stdout.lines()) {
        let (name, hex) = line.split_once(' ').ok_or("ioctl oracle: bad line")?;
        if name != m.name {
            return Err(format!("ioctl oracle: expected {}, got {name}", m.name));
        }
        values.push(u32::from_str_radix(hex.trim_start_matches("0x"), 16).map_err(|e| format!("oracle: {e}"))?);
    }
    if values.len() != ioctls.len() {
        return Err("ioctl oracle: missing output".into());
    }
    Ok(values)
}

/// Names of the object-like macros with a non-empty definition, in header order.
fn object_macros(header: &str) -> Vec<String> {
    let joined = header.replace("\\\n", " ");
    let mut out: Vec<String> = Vec::new();
    for line in joined.lines() {
        let Some(rest) = line.trim_start().strip_prefix("#define") else { continue };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let rest = rest.trim_start();
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        let after = &rest[name.len()..];
        if name.is_empty() || after.starts_with('(') || after.trim().is_empty() || out.contains(&name) {
            continue;
        }
        out.push(name);
    }
    out
}

/// Evaluates integer macros as `unsigned long long` with the system C compiler.
fn oracle_u64(header: &Path, args: &[String], names: &[String]) -> Result<Vec<u64>, String> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut src = format!("#include <stdio.h>\n#include \"{}\"\nint main(void) {{\n", header.display());
    for n in names {
        src.push_str(&format!("    printf(\"%s 0x%016llx\\n\", \"{n}\", (unsigned long long)({n}));\n"));
    }
    src.push_str("    return 0;\n}\n");
    let stdout = compile_and_run(CC, args, "macros.c", &src)?;
    let lines: Vec<&str> = stdout.lines().collect();
    if lines.len() != names.len() {
        return Err("macro oracle: missing output".into());
    }
    names
        .iter()
        .zip(lines)
        .map(|(n, line)| {
            let hex =
                line.strip_prefix(n.as_str()).and_then(|h| h.strip_prefix(" 0x")).ok_or("macro oracle: bad line")?;
            u64::from_str_radix(hex, 16).map_err(|e| format!("macro oracle: {e}"))
        })
        .collect()
}

/// Compiles `src` (named `file`, whose extension picks the language) with `compiler` and runs it;
/// returns what it printed.
fn compile_and_run(compiler: &str, args: &[String], file: &str, src: &str) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("baregpu-abi-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let result = (|| {
        let c = dir.join(file);
        let exe = dir.join("oracle");
        std::fs::write(&c, src).map_err(|e| format!("{}: {e}", c.display()))?;
        let cc = Command::new(compiler)
            .args(args)
            .arg("-o")
            .arg(&exe)
            .arg(&c)
            .stdout(Stdio::null())
            .output()
            .map_err(|e| format!("{compiler}: {e} (a C compiler is needed for the oracle)"))?;
        if !cc.status.success() {
            return Err(format!("{compiler} failed on {file}:\n{}", String::from_utf8_lossy(&cc.stderr)));
        }
        let run = Command::new(&exe).output().map_err(|e| format!("{}: {e}", exe.display()))?;
        if !run.status.success() {
            return Err(format!("the {file} oracle failed"));
        }
        String::from_utf8(run.stdout).map_err(|_| format!("{file} oracle: output not UTF-8"))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// `pub const NAME: u32 = 0x...;` for each request, a compile-time check that the size encoded in
/// the request equals the Rust structure's size, and a table of all of them.
fn ioctl_consts(ioctls: &[IoctlMacro], values: &[u32], table: &str) -> String {
    let mut s = String::from(
        "\n// Ioctl request numbers, evaluated by compiling the header's request macros with the system C\n\
         // compiler (x86_64 Linux `_IOC` encoding: nr 0-7, type 8-15, size 16-29, direction 30-31).\n",
    );
    for (m, v) in ioctls.iter().zip(values) {
        s.push_str(&format!("/// `{}`\npub const {}: u32 = {v:#010x};\n", m.definition, m.name));
    }
    s.push_str("\n// The argument size encoded in each request is the size of the Rust structure.\n");
    for m in ioctls {
        if let Some(st) = &m.arg_struct {
            s.push_str(&format!(
                "const _: () = assert!(({0} >> 16) as usize & 0x3fff == core::mem::size_of::<{st}>(), \"Size in {0}\");\n",
                m.name
            ));
        }
    }
    s.push_str(&format!(
        "\n/// Every request of the header: (name, request number, argument structure).\npub const {table}: &[(&str, u32, &str)] = &[\n"
    ));
    for m in ioctls {
        s.push_str(&format!("    (\"{0}\", {0}, \"{1}\"),\n", m.name, m.arg_struct.as_deref().unwrap_or("")));
    }
    s.push_str("];\n");
    s
}

/// Formats generated Rust with the workspace's rustfmt settings (so `cargo fmt --check` accepts it).
pub fn rustfmt(text: &str) -> Result<String, String> {
    use std::io::Write;
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--config", "max_width=120,use_small_heuristics=Max"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("rustfmt: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("rustfmt: no stdin")?;
    let input = text.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().map_err(|e| format!("rustfmt: {e}"))?;
    writer.join().map_err(|_| "rustfmt: writer panicked")?.map_err(|e| format!("rustfmt: {e}"))?;
    if !out.status.success() {
        return Err(format!("rustfmt failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    String::from_utf8(out.stdout).map_err(|_| "rustfmt: output not UTF-8".into())
}
