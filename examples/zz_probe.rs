use llm_from_scratch::prelude::*;
use std::time::Instant;
fn best<F: FnMut()>(n: usize, mut f: F) -> String {
    let mut v = vec![];
    for _ in 0..n {
        let t = Instant::now();
        f();
        v.push(t.elapsed().as_secs_f64() * 1e6);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    format!("best {:.1} med {:.1} us", v[0], v[n / 2])
}
fn main() {
    let threads: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .unwrap();
    for (t, total) in [(1usize, 64usize), (32, 32)] {
        let q = Tensor::<3, f32>::from_fn([12, t, 64], |[h, i, d]| {
            ((h * 7 + i * 3 + d) % 11) as f32 / 10.0 - 0.5
        })
        .unwrap();
        let kc = Tensor::<3, f32>::from_fn([12, 64, 96], |[h, d, j]| {
            ((h + j * 5 + d * 3) % 13) as f32 / 10.0 - 0.6
        })
        .unwrap();
        let vc =
            Tensor::<3, f32>::from_fn([12, 96, 64], |[h, j, e]| ((h + j + e * 7) % 9) as f32 / 9.0)
                .unwrap();
        let start = total - t;
        let keys_t = kc.view().slice(2, 0..total).unwrap();
        let values = vc.view().slice(1, 0..total).unwrap();
        let old = || {
            let mut s = matmul(&q, &keys_t).unwrap();
            s.view_mut().map_inplace(|x| x / 8.0);
            let p = s.causal_softmax(start).unwrap();
            matmul(&p, &values).unwrap()
        };
        let keys = keys_t.transpose(1, 2).unwrap();
        let new = || {
            attention(
                &q,
                &keys,
                &values,
                0.125,
                AttentionMask::Causal { offset: start },
            )
            .unwrap()
        };
        assert_eq!(old(), new());
        println!(
            "T={t} total={total} old {}",
            best(2000, || {
                std::hint::black_box(old());
            })
        );
        println!(
            "T={t} total={total} new {}",
            best(2000, || {
                std::hint::black_box(new());
            })
        );
    }
}
