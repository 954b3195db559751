//! The element types a field can hold: `f32`, `f64`, `Complex<f32>`, `Complex<f64>`.

use core::fmt::Debug;
use core::ops::{Add, AddAssign, Neg, Sub, SubAssign};
use num_complex::Complex;
use num_traits::{Float, Zero};

/// A field value: plain bytes ([`bytemuck::Pod`]), so messages are the values themselves.
/// Update coefficients are always real ([`Scalar::Real`]); a complex field is
/// scaled by them component-wise, so a complex run started from a real field stays real.
pub trait Scalar:
    bytemuck::Pod
    + Copy
    + Debug
    + Default
    + PartialEq
    + Send
    + Sync
    + 'static
    + Zero
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
{
    /// The real type of the components (`f32` or `f64`).
    type Real: Real;
    /// Short name used in scene files and outputs: "f32", "f64", "c32" or "c64".
    const NAME: &'static str;
    /// Bytes of one value in little-endian form.
    const BYTES: usize;
    /// True for the complex types (which can carry a phase).
    const COMPLEX: bool;

    /// The value with real part `r` and no imaginary part.
    fn from_real(r: Self::Real) -> Self;
    /// Multiplies by a real coefficient.
    fn scale(self, r: Self::Real) -> Self;
    /// Multiplies by the complex number `re + i·im` (a Bloch phase). Real types have no
    /// imaginary part to carry one: they are scaled by `re`, and callers only pass `im = 0`
    /// for them (a Bloch-periodic setup refuses real fields).
    fn rotate(self, re: Self::Real, im: Self::Real) -> Self;
    /// The real part.
    fn re(self) -> Self::Real;
    /// The imaginary part (0 for real types).
    fn im(self) -> Self::Real;
    /// |z|².
    fn norm_sqr(self) -> Self::Real;
    /// True when no component is NaN or infinite.
    fn is_finite(self) -> bool;
    /// Writes the value as little-endian bytes into `out[..Self::BYTES]`.
    fn write_le(self, out: &mut [u8]);
    /// Reads a value from little-endian bytes `bytes[..Self::BYTES]`.
    fn read_le(bytes: &[u8]) -> Self;
}

/// A real scalar: `f32` or `f64`.
pub trait Real: Scalar<Real = Self> + Float {
    /// Converts from `f64` (rounding to nearest for `f32`).
    fn from_f64(x: f64) -> Self;
    /// Converts to `f64` exactly.
    fn to_f64(self) -> f64;
}

macro_rules! real_scalar {
    ($t:ty, $name:literal, $cname:literal) => {
        impl Scalar for $t {
            type Real = $t;
            const NAME: &'static str = $name;
            const BYTES: usize = core::mem::size_of::<$t>();
            const COMPLEX: bool = false;
            fn from_real(r: $t) -> Self {
                r
            }
            fn scale(self, r: $t) -> Self {
                self * r
            }
            fn rotate(self, re: $t, im: $t) -> Self {
                debug_assert!(im == 0.0, "a real field cannot take a complex phase");
                self * re
            }
            fn re(self) -> $t {
                self
            }
            fn im(self) -> $t {
                0.0
            }
            fn norm_sqr(self) -> $t {
                self * self
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            fn write_le(self, out: &mut [u8]) {
                out[..Self::BYTES].copy_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                let mut b = [0u8; core::mem::size_of::<$t>()];
                b.copy_from_slice(&bytes[..Self::BYTES]);
                <$t>::from_le_bytes(b)
            }
        }

        impl Real for $t {
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }

        impl Scalar for Complex<$t> {
            type Real = $t;
            const NAME: &'static str = $cname;
            const BYTES: usize = 2 * core::mem::size_of::<$t>();
            const COMPLEX: bool = true;
            fn from_real(r: $t) -> Self {
                Complex::new(r, 0.0)
            }
            fn scale(self, r: $t) -> Self {
                Complex::new(self.re * r, self.im * r)
            }
            fn rotate(self, re: $t, im: $t) -> Self {
                Complex::new(self.re * re - self.im * im, self.re * im + self.im * re)
            }
            fn re(self) -> $t {
                self.re
            }
            fn im(self) -> $t {
                self.im
            }
            fn norm_sqr(self) -> $t {
                self.re * self.re + self.im * self.im
            }
            fn is_finite(self) -> bool {
                self.re.is_finite() && self.im.is_finite()
            }
            fn write_le(self, out: &mut [u8]) {
                let half = Self::BYTES / 2;
                out[..half].copy_from_slice(&self.re.to_le_bytes());
                out[half..Self::BYTES].copy_from_slice(&self.im.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                let half = Self::BYTES / 2;
                Complex::new(<$t>::read_le(&bytes[..half]), <$t>::read_le(&bytes[half..]))
            }
        }
    };
}

real_scalar!(f32, "f32", "c32");
real_scalar!(f64, "f64", "c64");

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Scalar>(v: T) {
        let mut buf = [0u8; 16];
        v.write_le(&mut buf);
        assert_eq!(T::read_le(&buf), v);
    }

    #[test]
    fn bytes_round_trip_for_all_types() {
        round_trip(1.5f32);
        round_trip(-2.25f64);
        round_trip(Complex::new(1.0f32, -3.0));
        round_trip(Complex::new(0.5f64, 7.0));
        assert_eq!(<Complex<f32> as Scalar>::NAME, "c32");
        assert_eq!(<Complex<f64> as Scalar>::BYTES, 16);
    }

    #[test]
    fn complex_scaling_keeps_a_real_value_real() {
        let z = Complex::<f64>::from_real(2.0).scale(0.25);
        assert_eq!(z.im, 0.0);
        assert_eq!(z.re, 0.5);
    }
}
