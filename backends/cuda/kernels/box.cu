/* Box copies between a field and a linear buffer, one thread per value, x fastest: halos
 * packed into the staging buffer (pack != 0) and unpacked from it, probes and read-backs.
 * r.lo and r.hi bound the box, r.storage_lo and r.extent the field's storage. The body
 * yee_copy_node of yee_cell.h. */
extern "C" __global__ void YEE_NAME(yee_box_copy)(YEE_VALUE *values, YEE_VALUE *buffer,
                                                  yee_region r, int pack)
{
    long long extent[3];
    long long cells = yee_box_extent(r.lo, r.hi, extent);
    long long n = yee_thread_index();
    if (n >= cells)
        return;
    YEE_NAME(yee_copy_node)(values, buffer, n, r.lo, extent, r.storage_lo, r.extent, pack);
}
