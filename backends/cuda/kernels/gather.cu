/* Copies between the entries indices[n] of `values` and buffer[n], one thread per entry (of
 * `count`): pack (pack != 0) or unpack. The slabs and resizes of arrays not stored over a box
 * (the polarisations of dispersive nodes). */
extern "C" __global__ void YEE_NAME(yee_gather)(YEE_VALUE *values, YEE_VALUE *buffer,
                                                const long long *indices, long long count,
                                                int pack)
{
    long long n = yee_thread_index();
    if (n >= count)
        return;
    if (pack)
        buffer[n] = values[indices[n]];
    else
        values[indices[n]] = buffer[n];
}
