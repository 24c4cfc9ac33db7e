/* k-means for choosing a few representatives among many points (CDMPP's way of
 * picking the states to measure on a new device): k-means++ seeding from a seeded
 * generator, then Lloyd's iterations until no point changes cluster (at most
 * KMEANS_MAX_ITERATIONS), a cluster left empty taking the point farthest from its
 * centre; each cluster's representative is its member nearest its centre. The same
 * points and seed always give the same choice. */
#ifndef HEADER_kmeans
#define HEADER_kmeans

#include <stdint.h>

#define KMEANS_MAX_ITERATIONS 20

/* Chooses min(k, n) distinct points of x (n x d, row-major) into chosen, a cluster's
 * representative each (a cluster that ends empty, where points coincide, gives way to
 * the point farthest from its centre not chosen yet); returns how many. */
int KMeans_select(const float *x, int n, int d, int k, uint64_t seed, int *chosen);

#endif
