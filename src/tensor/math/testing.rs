//! Test support for the math functions: special inputs, the run on every
//! `pulp` level, ulp distances, the references and the documented bounds.

use super::apply::{Function, Map, map_slice};
use super::{Math, scalar};
use pulp::Simd;

/// A function with its references and documented bounds (in ulp).
#[derive(Clone, Copy)]
pub(super) struct Case {
    pub(super) kind: Function,
    /// The max ulp error promised for f32 (all inputs).
    pub(super) f32_bound: u64,
    /// The max ulp error promised for f64 (the mpmath fixture).
    pub(super) f64_bound: u64,
    /// The f32 reference: an f64 computation, rounded to f32 by the caller.
    pub(super) reference: fn(f64) -> f64,
}

fn sigmoid64(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

fn gelu_tanh64(x: f64) -> f64 {
    let u = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
    // 0.5 x (1 + tanh u) = x sigmoid(2u), without the cancellation
    x * sigmoid64(2.0 * u)
}

/// The limit `-0` at `-inf` of the `x * (something going to 0)` functions
/// (their formulas give `-inf * 0 = NaN` there).
fn limit(x: f64, value: f64) -> f64 {
    if x == f64::NEG_INFINITY { -0.0 } else { value }
}

impl Case {
    pub(super) fn of(kind: Function) -> Self {
        let (f32_bound, f64_bound, reference): (u64, u64, fn(f64) -> f64) = match kind {
            Function::Exp => (1, 1, f64::exp),
            Function::Ln => (1, 1, f64::ln),
            Function::Tanh => (1, 1, f64::tanh),
            Function::Sigmoid => (1, 1, sigmoid64),
            Function::Silu => (1, 1, |x| limit(x, x * sigmoid64(x))),
            Function::GeluTanh => (1, 1, |x| limit(x, gelu_tanh64(x))),
            Function::GeluErf => (1, 1, |x| {
                limit(
                    x,
                    0.5 * x * libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2),
                )
            }),
            Function::Erf => (1, 1, libm::erf),
            Function::Sqrt => (0, 0, f64::sqrt),
            Function::Rsqrt => (1, 1, |x| 1.0 / x.sqrt()),
            Function::Recip => (0, 0, |x| 1.0 / x),
            Function::Neg => (0, 0, |x| -x),
            Function::Square => (0, 0, |x| x * x),
            Function::Abs => (0, 0, f64::abs),
        };
        Self {
            kind,
            f32_bound,
            f64_bound,
            reference,
        }
    }

    /// The name in the f64 fixture.
    pub(super) fn name(self) -> &'static str {
        match self.kind {
            Function::Exp => "exp",
            Function::Ln => "ln",
            Function::Tanh => "tanh",
            Function::Sigmoid => "sigmoid",
            Function::Silu => "silu",
            Function::GeluTanh => "gelu_tanh",
            Function::GeluErf => "gelu_erf",
            Function::Erf => "erf",
            Function::Sqrt => "sqrt",
            Function::Rsqrt => "rsqrt",
            Function::Recip => "recip",
            Function::Neg => "neg",
            Function::Square => "square",
            Function::Abs => "abs",
        }
    }
}

/// A position on the number line: bit patterns ordered like the values
/// (`-0` and `+0` both 0), so the ulp distance is a difference.
fn ordinal(bits: u64, sign: u64) -> i128 {
    if bits & sign != 0 {
        -i128::from(bits & !sign)
    } else {
        i128::from(bits)
    }
}

/// Representable numbers between `a` and `b` (0 when both are NaN, the
/// maximum when only one is).
pub(super) fn ulp_f32(a: f32, b: f32) -> u64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => 0,
        (false, false) => {
            let sign = 1 << 31;
            let d = ordinal(a.to_bits().into(), sign) - ordinal(b.to_bits().into(), sign);
            d.unsigned_abs() as u64
        }
        _ => u64::MAX,
    }
}

/// [`ulp_f32`] for f64.
pub(super) fn ulp_f64(a: f64, b: f64) -> u64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => 0,
        (false, false) => {
            let sign = 1 << 63;
            (ordinal(a.to_bits(), sign) - ordinal(b.to_bits(), sign)).unsigned_abs() as u64
        }
        _ => u64::MAX,
    }
}

/// A small deterministic generator (xorshift64*).
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed | 1)
    }
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `[lo, hi)`.
    pub(super) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// Points where the functions change method or the result changes range,
/// and the usual special values.
const EDGES: [f64; 30] = [
    0.0,
    1.0,
    0.5,
    0.625,
    std::f64::consts::FRAC_1_SQRT_2,
    0.875,
    1.25,
    1.7677669529663687,
    2.5,
    3.5355339059327378,
    4.0,
    5.656854249492381,
    9.0,
    10.0,
    20.0,
    40.0,
    88.72283,
    89.0,
    87.33655,
    103.972_08,
    104.0,
    108.6,
    170.0,
    709.782_712_893_384,
    710.0,
    745.133_219_101_941_1,
    746.0,
    1400.0,
    2000.0,
    1e30,
];

/// Special and edge inputs of one type: both signs of [`EDGES`] and their
/// neighbours, zeros, infinities, NaN, subnormals, the extremes.
fn specials<F: Math + TestFloat>() -> Vec<F> {
    let mut out = vec![F::QNAN, F::INF, -F::INF, F::BIGGEST, -F::BIGGEST];
    for &e in &EDGES {
        let e = F::from_f64(e);
        for v in [e, e.next_up(), e.next_down(), e.next_up().next_up()] {
            out.push(v);
            out.push(-v);
        }
    }
    for bits in [1_u64, 2, 3, 1000, 123_456] {
        out.push(F::from_u64_bits(bits));
        out.push(-F::from_u64_bits(bits));
    }
    out.push(F::SMALLEST_NORMAL);
    out.push(F::SMALLEST_NORMAL.next_down());
    out.push(-F::SMALLEST_NORMAL);
    out
}

/// Inputs for the level and fixture tests: the specials, random bit
/// patterns (every magnitude) and random values in `[-50, 50]`.
pub(super) fn inputs<F: Math + TestFloat>(random: usize) -> Vec<F> {
    let mut rng = Rng::new(0x5eed);
    let mut out = specials::<F>();
    for _ in 0..random {
        out.push(F::from_random_bits(rng.next()));
        out.push(F::from_f64(rng.uniform(-50.0, 50.0)));
        out.push(F::from_f64(rng.uniform(-4.0, 4.0)));
    }
    out
}

/// What the tests need of f32 / f64 beyond [`Math`].
pub(super) trait TestFloat:
    Copy + PartialEq + std::fmt::Debug + std::ops::Neg<Output = Self>
{
    const QNAN: Self;
    const INF: Self;
    const BIGGEST: Self;
    const SMALLEST_NORMAL: Self;
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn from_u64_bits(bits: u64) -> Self;
    fn from_random_bits(bits: u64) -> Self;
    fn next_up(self) -> Self;
    fn next_down(self) -> Self;
    fn is_nan(self) -> bool;
    fn bits(self) -> u64;
    fn ulp(a: Self, b: Self) -> u64;
}

macro_rules! test_float {
    ($t:ident, $u:ident, $ulp:ident) => {
        impl TestFloat for $t {
            const QNAN: $t = $t::NAN;
            const INF: $t = $t::INFINITY;
            const BIGGEST: $t = $t::MAX;
            const SMALLEST_NORMAL: $t = $t::MIN_POSITIVE;
            fn from_f64(x: f64) -> $t {
                x as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_u64_bits(bits: u64) -> $t {
                $t::from_bits(bits as $u)
            }
            fn from_random_bits(bits: u64) -> $t {
                $t::from_bits((bits >> (64 - $u::BITS)) as $u)
            }
            fn next_up(self) -> $t {
                $t::next_up(self)
            }
            fn next_down(self) -> $t {
                $t::next_down(self)
            }
            fn is_nan(self) -> bool {
                $t::is_nan(self)
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
            fn ulp(a: $t, b: $t) -> u64 {
                $ulp(a, b)
            }
        }
    };
}

test_float!(f32, u32, ulp_f32);
test_float!(f64, u64, ulp_f64);

/// `kind` over `input` on one `pulp` level.
pub(super) fn run_on<F: Math + TestFloat, S: Simd>(simd: S, kind: Function, input: &[F]) -> Vec<F> {
    let mut output = vec![F::from_f64(0.0); input.len()];
    simd.vectorize(Map {
        kind,
        input,
        output: &mut output,
    });
    output
}

/// The same bits (NaN as NaN) on `pulp::Scalar`, AVX2 and AVX-512 (where
/// the CPU has them), through `map_slice` and from the scalar model.
pub(super) fn check_levels(kind: Function) {
    check_levels_of::<f32>(kind);
    check_levels_of::<f64>(kind);
}

fn check_levels_of<F: Math + TestFloat>(kind: Function) {
    let input = inputs::<F>(3000);
    let mut outputs = vec![("Scalar", run_on(pulp::Scalar::new(), kind, &input))];
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if let Some(simd) = pulp::x86::V3::try_new() {
            outputs.push(("V3", run_on(simd, kind, &input)));
        }
        if let Some(simd) = pulp::x86::V4::try_new() {
            outputs.push(("V4", run_on(simd, kind, &input)));
        }
    }
    let mut dispatched = vec![F::from_f64(0.0); input.len()];
    map_slice(kind, &input, &mut dispatched);
    outputs.push(("map_slice", dispatched));
    let model: Vec<F> = input.iter().map(|&x| scalar::eval(kind, x)).collect();
    for (level, out) in &outputs {
        for ((x, got), want) in input.iter().zip(out).zip(&model) {
            let same = got.bits() == want.bits() || (got.is_nan() && want.is_nan());
            assert!(
                same,
                "{kind:?}({x:?}): {level} gives {got:?}, the scalar model {want:?}"
            );
        }
    }
}

/// About 10^5 f32 inputs (every magnitude, and dense where the function
/// varies) within the documented bound of the f64 reference; returns the
/// max error seen.
pub(super) fn check_f32_sampled(case: Case) -> u64 {
    let mut input = inputs::<f32>(33_000);
    input.extend((0..1000).map(|i| (i as f32 - 500.0) * 0.011));
    let mut ours = vec![0.0_f32; input.len()];
    map_slice(case.kind, &input, &mut ours);
    let mut worst = (0, 0.0_f32);
    for (&x, &y) in input.iter().zip(&ours) {
        let want = (case.reference)(f64::from(x)) as f32;
        let err = ulp_f32(y, want);
        if err > worst.0 {
            worst = (err, x);
        }
    }
    eprintln!(
        "{:?} f32 sampled: max {} ulp at {:e}",
        case.kind, worst.0, worst.1
    );
    assert!(
        worst.0 <= case.f32_bound,
        "{:?} f32: {} ulp at x = {:e} (bound {})",
        case.kind,
        worst.0,
        worst.1,
        case.f32_bound
    );
    worst.0
}

/// The f64 fixture's pairs `(x, y)` for `name` (`scripts/math_reference.py`:
/// per function a name length byte, the name, a u32 count, then the
/// pairs as little-endian bit patterns).
pub(super) fn fixture(name: &str) -> Vec<(f64, f64)> {
    const BYTES: &[u8] = include_bytes!("../../../tests/fixtures/math/f64_reference.bin");
    let mut rest = BYTES;
    let mut take = |n: usize| {
        let (head, tail) = rest.split_at(n);
        rest = tail;
        head
    };
    assert_eq!(take(8), b"MATHF64\0");
    loop {
        let len = take(1)[0] as usize;
        assert!(len > 0, "no {name} in the f64 fixture");
        let found = take(len) == name.as_bytes();
        let count = u32::from_le_bytes(take(4).try_into().unwrap()) as usize;
        let pairs = take(16 * count);
        if found {
            return pairs
                .chunks_exact(16)
                .map(|p| {
                    let x = u64::from_le_bytes(p[..8].try_into().unwrap());
                    let y = u64::from_le_bytes(p[8..].try_into().unwrap());
                    (f64::from_bits(x), f64::from_bits(y))
                })
                .collect();
        }
    }
}

/// The fixture's inputs within the documented f64 bound; returns the max
/// error seen.
pub(super) fn check_f64_fixture(case: Case) -> u64 {
    let pairs = fixture(case.name());
    let input: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let mut ours = vec![0.0; input.len()];
    map_slice(case.kind, &input, &mut ours);
    let mut worst = (0, 0.0);
    for ((x, want), got) in pairs.iter().zip(&ours) {
        let err = ulp_f64(*got, *want);
        if err > worst.0 {
            worst = (err, *x);
        }
    }
    eprintln!(
        "{:?} f64 fixture: max {} ulp at {:e}",
        case.kind, worst.0, worst.1
    );
    assert!(
        worst.0 <= case.f64_bound,
        "{:?} f64: {} ulp at x = {:e} (bound {})",
        case.kind,
        worst.0,
        worst.1,
        case.f64_bound
    );
    worst.0
}
