/* The complex field value of the kernels (c32, c64), for C++ (NVRTC and the emulated device):
 * num_complex::Complex<R>'s layout (re, then im) with the operations yee_cell.h's bodies use,
 * each the scalar backend's (core/src/scalar.rs) component by component in the same order:
 *   a + b, a - b           (re + re, im + im)
 *   a * r, r * a           (Scalar::scale: re * r, im * r; coefficients are always real)
 *   a == b                 (both parts equal: v - v == 0 is "finite", as Scalar::is_finite)
 *   yee_complex<R>(r)      (Scalar::from_real: im = +0)
 * so a complex update is two real updates in the real kernels' expression order, and the one
 * truly complex product, the Bloch phase (Scalar::rotate), is yee_rotate in yee_cell.h.
 * Include it before yee_cell.h with YEE_DEVICE defined (__device__ for NVRTC). */
#ifndef YEE_COMPLEX_H
#define YEE_COMPLEX_H

template <typename R> struct yee_complex {
    R re;
    R im;
    yee_complex() = default;
    /* A real value (im = +0). */
    YEE_DEVICE yee_complex(R r) : re(r), im((R)0) {}
    YEE_DEVICE yee_complex(R r, R i) : re(r), im(i) {}
};

template <typename R>
static YEE_DEVICE inline yee_complex<R> operator+(yee_complex<R> a, yee_complex<R> b)
{
    return yee_complex<R>(a.re + b.re, a.im + b.im);
}

template <typename R>
static YEE_DEVICE inline yee_complex<R> operator-(yee_complex<R> a, yee_complex<R> b)
{
    return yee_complex<R>(a.re - b.re, a.im - b.im);
}

template <typename R> static YEE_DEVICE inline yee_complex<R> operator*(yee_complex<R> a, R r)
{
    return yee_complex<R>(a.re * r, a.im * r);
}

template <typename R> static YEE_DEVICE inline yee_complex<R> operator*(R r, yee_complex<R> a)
{
    return yee_complex<R>(r * a.re, r * a.im);
}

template <typename R> static YEE_DEVICE inline bool operator==(yee_complex<R> a, yee_complex<R> b)
{
    return a.re == b.re && a.im == b.im;
}

#endif
