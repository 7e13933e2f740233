//! A source with bad lines: every bad line is reported (up to 20) with its line and column, in
//! source order, and no bytes come back.

use baregpu_isa::asm::MAX_ERRORS;
use baregpu_isa::{assemble, IsaError};

fn positions(e: &IsaError) -> Vec<(usize, usize)> {
    match e {
        IsaError::Asm { line, col, .. } => vec![(*line, *col)],
        IsaError::AsmMany(v) => v.iter().flat_map(positions).collect(),
        e => panic!("not an assembler error: {e}"),
    }
}

#[test]
fn every_bad_line_is_reported() {
    let src = "s_nop 0\n  v_bogus v0\ns_mov_b32 s0, s1\ns_mov_b32 s0, v_x\nlabel:\n  s_branch nowhere\n";
    let e = assemble(baregpu_isa::Arch::Gfx1100, src).unwrap_err();
    assert_eq!(positions(&e), vec![(2, 3), (4, 15), (6, 12)], "{e}");
    let text = e.to_string();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.lines().all(|l| l.split(':').take(2).all(|n| n.parse::<usize>().is_ok())), "{text}");
    assert!(text.contains("undefined label 'nowhere'"), "{text}");
}

#[test]
fn one_bad_line_is_a_single_error() {
    let e = assemble(baregpu_isa::Arch::Gfx1100, "s_nop 0\nv_bogus v0\n").unwrap_err();
    assert!(matches!(e, IsaError::Asm { line: 2, col: 1, .. }), "{e}");
}

#[test]
fn at_most_twenty_errors() {
    let src = "v_bogus v0\n".repeat(100);
    let e = assemble(baregpu_isa::Arch::Gfx942, &src).unwrap_err();
    let p = positions(&e);
    assert_eq!(p.len(), MAX_ERRORS);
    assert_eq!(p.first(), Some(&(1, 1)));
    assert_eq!(p.last(), Some(&(MAX_ERRORS, 1)));
}

#[test]
fn a_label_defined_twice_is_reported_with_the_other_errors() {
    let src = "a:\ns_nop 0\na:\nv_bogus\n";
    let e = assemble(baregpu_isa::Arch::Gfx1201, src).unwrap_err();
    assert_eq!(positions(&e), vec![(3, 1), (4, 1)], "{e}");
}
