/* The node a thread of a launch owns: what every box kernel starts with. Blocks are
 * layout::BLOCK (128 x 2 x 1) in a grid covering the box; threads past it return at once
 * (layout::box_launch, tested to give each node exactly one thread). */

/* The node of this thread in a box launch over [lo, hi); false past the box. */
static __device__ inline int yee_thread_node(const long long lo[3], const long long hi[3],
                                             long long p[3])
{
    p[0] = lo[0] + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    p[1] = lo[1] + (long long)blockIdx.y * blockDim.y + threadIdx.y;
    p[2] = lo[2] + (long long)blockIdx.z * blockDim.z + threadIdx.z;
    return p[0] < hi[0] && p[1] < hi[1] && p[2] < hi[2];
}

/* Whether p lies in the box [lo, hi). */
static __device__ inline int yee_in_box(const long long p[3], const long long lo[3],
                                        const long long hi[3])
{
    return p[0] >= lo[0] && p[0] < hi[0] && p[1] >= lo[1] && p[1] < hi[1] && p[2] >= lo[2] &&
           p[2] < hi[2];
}

/* The index of this thread in a linear launch. */
static __device__ inline long long yee_thread_index(void)
{
    return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

/* The cells of the box [lo, hi) and its extents. */
static __device__ inline long long yee_box_extent(const long long lo[3], const long long hi[3],
                                                  long long extent[3])
{
    for (int a = 0; a < 3; ++a)
        extent[a] = hi[a] - lo[a];
    return extent[0] * extent[1] * extent[2];
}

/* The entry this thread takes in a launch over a list of `count` nodes whose cells are
 * cells[3n .. 3n + 3]: its index n, or -1 past the list or where that cell lies outside the
 * box [lo, hi) of the launch. */
static __device__ inline long long yee_listed_node(long long count, const long long *cells,
                                                   const long long lo[3], const long long hi[3])
{
    long long n = yee_thread_index();
    if (n >= count)
        return -1;
    for (int a = 0; a < 3; ++a)
        if (cells[3 * n + a] < lo[a] || cells[3 * n + a] >= hi[a])
            return -1;
    return n;
}
