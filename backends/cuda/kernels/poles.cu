/* One pass of a dispersive E phase (YEE_POLARISE, YEE_CORRECT, YEE_COMPLETE of yee_cell.h)
 * over the dispersive nodes of one component inside the box r: one thread per node n (of
 * `count`), at cells[3n..3n+3] and storage offset offsets[n], its poles entries
 * first[n]..first[n+1] of `now` and `next`, its material material[n] with pole coefficients
 * steps[3 s..] and explicit_steps[s] for s in steps_first[m]..steps_first[m+1] and Cb/dt
 * drive[m]; the body yee_pole_pass. Sets *non_finite when a correction stores a NaN or an
 * infinity. */
extern "C" __global__ void YEE_NAME(yee_poles)(int pass, YEE_VALUE *values, long long count,
                                               const long long *cells,
                                               const long long *offsets,
                                               const long long *first, const int *material,
                                               const long long *steps_first,
                                               const YEE_REAL *steps,
                                               const int *explicit_steps,
                                               const YEE_REAL *drive, YEE_VALUE *now,
                                               YEE_VALUE *next, YEE_VALUE *scratch, yee_region r,
                                               int *non_finite)
{
    long long n = yee_listed_node(count, cells, r.lo, r.hi);
    if (n < 0)
        return;
    int m = material[n];
    long long s = steps_first[m];
    if (!YEE_NAME(yee_pole_pass)(pass, values + offsets[n], now + first[n], next + first[n],
                                 first[n + 1] - first[n], steps + 3 * s, explicit_steps + s,
                                 scratch + n, drive[m]))
        *non_finite = 1;
}
