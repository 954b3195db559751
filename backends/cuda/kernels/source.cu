/* One point source (soft: adds v * gain; hard: stores v), one thread: the body
 * yee_source_node of yee_cell.h. v is the waveform's value this step, from the host. */
extern "C" __global__ void YEE_NAME(yee_source)(YEE_VALUE *values, long long offset, YEE_REAL v,
                                                int hard, const unsigned short *ids,
                                                int uniform, const YEE_REAL *coefficients)
{
    if (yee_thread_index() != 0)
        return;
    YEE_NAME(yee_source_node)(values, offset, v, hard, ids, uniform, coefficients);
}
