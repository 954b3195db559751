/* The Bloch phase of the ghosts a halo filled across a Bloch-periodic wrap (yee_em::bloch):
 * one thread per node of the box r (x fastest) of a field stored over r's storage box, its
 * value times e^{i theta} = re + i im, right after the box was unpacked. The body
 * yee_phase_node of yee_cell.h. */
extern "C" __global__ void YEE_NAME(yee_bloch)(YEE_VALUE *values, yee_region r, YEE_REAL re,
                                               YEE_REAL im)
{
    long long extent[3];
    long long cells = yee_box_extent(r.lo, r.hi, extent);
    long long n = yee_thread_index();
    if (n >= cells)
        return;
    YEE_NAME(yee_phase_node)(values, n, r.lo, extent, r.storage_lo, r.extent, re, im);
}
