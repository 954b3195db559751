/* The device's memory bandwidth, as STREAM measures a host's: the triad a[i] = b[i] + s * c[i]
 * over n values (McCalpin, "Memory bandwidth and machine balance", IEEE TCCA Newsletter 1995),
 * one thread a value, in a linear launch (layout::linear_launch). `yee bench --backend cuda`
 * times it beside the Yee update for its roofline. */
extern "C" __global__ void YEE_NAME(yee_triad)(YEE_VALUE *a, const YEE_VALUE *b,
                                               const YEE_VALUE *c, YEE_REAL s, long long n)
{
    long long i = yee_thread_index();
    if (i < n)
        a[i] = b[i] + s * c[i];
}
