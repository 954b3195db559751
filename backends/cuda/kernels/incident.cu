/* The TF/SF surface corrections of one component (Taflove & Hagness, 3rd ed., eqs.
 * (5.46)-(5.49)): thread n adds incident[n] times its node's curl coefficient to the node at
 * storage offset offsets[n], the body yee_incident_node of yee_cell.h. The nodes of one launch
 * are distinct (a node corrected twice in a step gets its second correction in a later launch,
 * so each node's corrections keep the scalar backend's order). */
extern "C" __global__ void YEE_NAME(yee_incident)(YEE_VALUE *values, const long long *offsets,
                                                  const YEE_REAL *incident, long long count,
                                                  const unsigned short *ids, int uniform,
                                                  const YEE_REAL *coefficients)
{
    long long n = yee_thread_index();
    if (n >= count)
        return;
    YEE_NAME(yee_incident_node)(values, offsets[n], incident[n], ids, uniform, coefficients);
}
