/* Box copies between a field and a linear buffer, one thread per value, x fastest: halos
 * packed into the staging buffer and unpacked from it, probes and read-backs. r.lo and r.hi
 * bound the box, r.storage_lo and r.extent the field's storage. The bodies yee_pack_node and
 * yee_unpack_node of yee_cell.h. */
extern "C" __global__ void YEE_NAME(yee_pack)(const YEE_REAL *values, YEE_REAL *out,
                                              yee_region r)
{
    long long extent[3];
    long long cells = yee_box_extent(r.lo, r.hi, extent);
    long long n = yee_thread_index();
    if (n >= cells)
        return;
    YEE_NAME(yee_pack_node)(values, out, n, r.lo, extent, r.storage_lo, r.extent);
}

extern "C" __global__ void YEE_NAME(yee_unpack)(YEE_REAL *values, const YEE_REAL *data,
                                                yee_region r)
{
    long long extent[3];
    long long cells = yee_box_extent(r.lo, r.hi, extent);
    long long n = yee_thread_index();
    if (n >= cells)
        return;
    YEE_NAME(yee_unpack_node)(values, data, n, r.lo, extent, r.storage_lo, r.extent);
}
