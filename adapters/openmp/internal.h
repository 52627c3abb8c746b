/*
 * The OpenMP adapter's private declarations: the regions of OpenMP constructs, named as
 * Score-P names them ("!$omp parallel @file.c:12"), and the team-thread side of a
 * parallel region (entering the forking thread's call path).
 */
#ifndef HP_ADAPTERS_OPENMP_INTERNAL_H
#define HP_ADAPTERS_OPENMP_INTERNAL_H

#include <stdint.h>

#include "measurement/cct.h"
#include "measurement/location.h"
#include "measurement/region.h"

typedef enum hp_omp_kind {
    HP_OMP_PARALLEL,
    HP_OMP_BARRIER,
    HP_OMP_CRITICAL,
    HP_OMP_CRITICAL_SBLOCK,
    HP_OMP_KINDS
} hp_omp_kind;

/* The region of a construct of `kind` whose code is at `addr` (the outlined function of
 * a parallel region, the return address of a call into libgomp), defined on first sight
 * (cold: line table lookup, registry lock) and looked up without a lock afterwards.
 * Returns NULL when the budget is used up. */
hp_region *hp__omp_region(hp_location *loc, hp_omp_kind kind, uintptr_t addr);

/* The shadow-stack address of frames of `kind`: a tag that no function has, so that
 * the compiler adapter's exits never close them by mistake. */
uintptr_t hp__omp_frame_addr(hp_omp_kind kind);

#endif
