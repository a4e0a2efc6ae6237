//! Discrete filters for motion cueing, designed from their continuous transfer functions with
//! the bilinear (Tustin) transform `s = K (1 - z^-1) / (1 + z^-1)`, `K = 2 fs`, run in f64.
//!
//! Invariants: every filter keeps its full state (inputs and outputs) so [`Filter::reset`]
//! returns it exactly to rest; no allocation; a non-finite input is treated as 0 so one bad
//! sample cannot poison the state forever.

/// A first- or second-order IIR section in transposed direct form II.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Filter {
    /// Numerator `b0, b1, b2`.
    pub b: [f64; 3],
    /// Denominator `1, a1, a2`.
    pub a: [f64; 3],
    state: [f64; 2],
}

impl Filter {
    /// Tustin transform of `(b2 s^2 + b1 s + b0) / (a2 s^2 + a1 s + a0)` at `fs` Hz. With
    /// `a2 = b2 = 0` the section is first order (no cancelled pole at z = -1).
    pub fn tustin(num: [f64; 3], den: [f64; 3], fs: f64) -> Filter {
        let k = 2.0 * fs;
        let [b0, b1, b2] = num;
        let [a0, a1, a2] = den;
        let (b, a) = if a2 == 0.0 && b2 == 0.0 {
            (
                [b1 * k + b0, b0 - b1 * k, 0.0],
                [a1 * k + a0, a0 - a1 * k, 0.0],
            )
        } else {
            let k2 = k * k;
            (
                [
                    b2 * k2 + b1 * k + b0,
                    2.0 * b0 - 2.0 * b2 * k2,
                    b2 * k2 - b1 * k + b0,
                ],
                [
                    a2 * k2 + a1 * k + a0,
                    2.0 * a0 - 2.0 * a2 * k2,
                    a2 * k2 - a1 * k + a0,
                ],
            )
        };
        let n = a[0];
        Filter {
            b: b.map(|v| v / n),
            a: [1.0, a[1] / n, a[2] / n],
            state: [0.0; 2],
        }
    }

    /// First-order high-pass `s / (s + omega)`.
    pub fn high_pass_1(omega: f64, fs: f64) -> Filter {
        Filter::tustin([0.0, 1.0, 0.0], [omega, 1.0, 0.0], fs)
    }

    /// Second-order high-pass `s^2 / (s^2 + 2 zeta omega s + omega^2)`.
    pub fn high_pass_2(omega: f64, zeta: f64, fs: f64) -> Filter {
        Filter::tustin(
            [0.0, 0.0, 1.0],
            [omega * omega, 2.0 * zeta * omega, 1.0],
            fs,
        )
    }

    /// Second-order low-pass `omega^2 / (s^2 + 2 zeta omega s + omega^2)`.
    pub fn low_pass_2(omega: f64, zeta: f64, fs: f64) -> Filter {
        Filter::tustin(
            [omega * omega, 0.0, 0.0],
            [omega * omega, 2.0 * zeta * omega, 1.0],
            fs,
        )
    }

    /// The integrator `1 / s` (trapezoidal rule).
    pub fn integrator(fs: f64) -> Filter {
        Filter::tustin([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], fs)
    }

    /// A filter that passes its input unchanged.
    pub fn identity() -> Filter {
        Filter {
            b: [1.0, 0.0, 0.0],
            a: [1.0, 0.0, 0.0],
            state: [0.0; 2],
        }
    }

    /// Filters one sample.
    pub fn step(&mut self, x: f64) -> f64 {
        let x = if x.is_finite() { x } else { 0.0 };
        let y = self.b[0] * x + self.state[0];
        self.state[0] = self.b[1] * x - self.a[1] * y + self.state[1];
        self.state[1] = self.b[2] * x - self.a[2] * y;
        y
    }

    /// Back to rest (all state zero).
    pub fn reset(&mut self) {
        self.state = [0.0; 2];
    }
}

/// A cascade of filters applied in order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chain<const N: usize>(pub [Filter; N]);

impl<const N: usize> Chain<N> {
    /// Filters one sample through every stage.
    pub fn step(&mut self, x: f64) -> f64 {
        self.0.iter_mut().fold(x, |v, f| f.step(v))
    }

    /// Every stage back to rest.
    pub fn reset(&mut self) {
        self.0.iter_mut().for_each(Filter::reset);
    }
}

/// Moves its output toward the input by at most `rate * dt` per sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimiter {
    /// Largest change per sample.
    pub max_step: f64,
    /// Current output.
    pub value: f64,
}

impl RateLimiter {
    /// A limiter at 0 allowing `rate` units per second at `fs` Hz.
    pub fn new(rate: f64, fs: f64) -> RateLimiter {
        RateLimiter {
            max_step: rate / fs,
            value: 0.0,
        }
    }

    /// One sample.
    pub fn step(&mut self, target: f64) -> f64 {
        let target = if target.is_finite() {
            target
        } else {
            self.value
        };
        self.value += (target - self.value).clamp(-self.max_step, self.max_step);
        self.value
    }
}

/// Smooth saturation: `limit * tanh(x / limit)` (slope 1 at 0, never beyond `±limit`).
pub fn soft_clip(x: f64, limit: f64) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    limit * (x / limit).tanh()
}
