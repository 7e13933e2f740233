//! Random graphs (graph::random) planned by compile and run by the simulated scheduler in many
//! interleavings must give the host model's bytes: a missing barrier or wait shows as a race.

use super::super::model::{self, Memory};
use super::super::random::{generate, mix, Case, GenConfig};
use super::super::rng::Rng;
use super::super::sim::simulate;
use super::*;
use std::time::Instant;

const INTERLEAVINGS: usize = 6;

fn config(seed: u64) -> GenConfig {
    let devices = 1 + (seed % 2) as usize;
    let fixed = (0..devices)
        .map(|d| FixedBuffer { home: Home::Device(d), va: 0x10_0000 * (d as u64 + 1), bytes: 128 })
        .chain([FixedBuffer { home: Home::Host, va: 0x80_0000, bytes: 96 }])
        .collect();
    GenConfig { devices, max_nodes: 24, fixed, backward_wait_pct: 15 }
}

fn oracle(case: &Case<()>, plan: &Plan) -> Memory {
    let mut mem = case.init.clone();
    model::run(&case.graph, &plan.order, &mut mem, &case.bind, &mix);
    mem
}

/// Interleavings of `plan` (seeded by `seed`) that do not end with the model's bytes.
fn mismatches(case: &Case<()>, plan: &Plan, want: &Memory, seed: u64) -> usize {
    let mut rng = Rng::new(seed ^ 0x5eed);
    (0..INTERLEAVINGS)
        .filter(|_| {
            let got = simulate(&case.graph, plan, &case.init, &case.bind, &mix, &mut rng)
                .unwrap_or_else(|e| panic!("seed {seed}: {e} in a graph compile accepted"));
            got != *want
        })
        .count()
}

#[test]
fn random_plans_match_the_host_model_in_every_interleaving() {
    let start = Instant::now();
    let (mut graphs, mut cycles, mut nodes, mut waits) = (0, 0, 0, 0);
    for seed in 0..3000u64 {
        let case = generate(&mut Rng::new(seed), &(), &config(seed));
        let devices = [DeviceCaps::FULL; 2];
        let plan = match compile(&case.graph, &devices) {
            Ok(p) => p,
            Err(GraphError::Cycle { path }) => {
                assert!(path.contains("wait on external"), "seed {seed}: {path}");
                cycles += 1;
                continue;
            }
            Err(e) => panic!("seed {seed}: {e}"),
        };
        let want = oracle(&case, &plan);
        assert_eq!(mismatches(&case, &plan, &want, seed), 0, "seed {seed}: a race in {plan:#?}");
        graphs += 1;
        nodes += case.graph.nodes.len();
        waits += plan.count(|s| matches!(s, Step::Wait(_)));
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{graphs} graphs ({nodes} nodes, {waits} waits, {cycles} refused as cycles) x {INTERLEAVINGS} interleavings in {secs:.2} s"
    );
    assert!(graphs > 2000 && cycles > 0, "the generator covers both outcomes");
}

/// The check can fail: drop one barrier or wait from each plan and the races show.
#[test]
fn a_plan_missing_one_barrier_or_wait_is_caught() {
    let (mut mutated, mut caught) = (0, 0);
    for seed in 0..600u64 {
        let case = generate(&mut Rng::new(seed), &(), &config(seed));
        let Ok(mut plan) = compile(&case.graph, &[DeviceCaps::FULL; 2]) else { continue };
        let want = oracle(&case, &plan);
        let sites: Vec<(usize, usize)> = plan
            .queues
            .iter()
            .enumerate()
            .flat_map(|(q, qp)| qp.steps.iter().enumerate().map(move |(i, s)| (q, i, *s)))
            .filter(|(_, _, s)| matches!(s, Step::Barrier | Step::Wait(_)))
            .map(|(q, i, _)| (q, i))
            .collect();
        if sites.is_empty() {
            continue;
        }
        let (q, i) = sites[Rng::new(seed).index(sites.len())];
        plan.queues[q].steps.remove(i);
        mutated += 1;
        caught += usize::from(mismatches(&case, &plan, &want, seed) > 0);
    }
    eprintln!("{caught} of {mutated} plans missing one barrier or wait gave other bytes");
    // Not every dropped step is visible (a wait another path also covers at run time, a race
    // the interleavings miss), but most are.
    assert!(caught * 2 > mutated, "{caught} of {mutated}");
}

#[test]
fn generated_graphs_are_deterministic_per_seed() {
    let a = generate(&mut Rng::new(42), &(), &config(42));
    let b = generate(&mut Rng::new(42), &(), &config(42));
    assert_eq!(format!("{:?}", a.graph), format!("{:?}", b.graph));
    assert_eq!(a.init, b.init);
}
