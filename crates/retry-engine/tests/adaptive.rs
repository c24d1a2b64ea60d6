//! The adaptive limiter against botocore's own classes, step by step: the golden file is
//! botocore 1.44.8's `ClientRateLimiter`, `TokenBucket`, `RateClocker` and `CubicCalculator`
//! driven with a fake clock (tests/clients/adaptive_botocore.py writes it, and `scripts/test.sh`
//! checks that botocore still gives it). After every send and every response the fill rate,
//! the measured rate and the bucket's tokens agree, and every wait for a token is the same.

use retry_engine::{AdaptiveLimiter, Micros};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn the_limiter_moves_as_botocores_at_every_step() {
    let path = format!(
        "{}/../../tests/golden/adaptive_botocore.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut lab = AdaptiveLimiter::new(Micros::ZERO);
    let (mut waits, mut throttles) = (0, 0);
    for (i, line) in text.lines().skip(1).enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        let t = Micros(f[0].parse().unwrap());
        let delay: u64 = f[2].parse().unwrap();
        let num = |k: usize| f[k].parse::<f64>().unwrap();
        match f[1] {
            "send" => {
                // Whole microseconds, rounded up: a last-bit difference in the tokens may move
                // a wait by the one microsecond it rounds to.
                let got = lab.acquire(t).as_micros();
                assert!(
                    got.abs_diff(delay) <= 1,
                    "step {i}: waits {got} us, botocore {delay} us"
                );
                waits += usize::from(delay > 0);
            }
            kind => {
                throttles += usize::from(kind == "throttle");
                lab.on_response(t, kind == "throttle");
            }
        }
        let (fill, measured) = (lab.fill_rate(), lab.measured_rate());
        assert!(
            close(fill, num(3)),
            "step {i}: fill rate {fill} against {}",
            num(3)
        );
        assert!(
            close(measured, num(4)),
            "step {i}: measured rate {measured}"
        );
        if delay == 0 {
            let c = lab.capacity();
            assert!(close(c, num(5)), "step {i}: tokens {c} against {}", num(5));
        }
    }
    // The sequence exercises what matters: throttling spells and sends that wait.
    assert!(
        throttles >= 10 && waits >= 100,
        "{throttles} throttles, {waits} waits"
    );
}
