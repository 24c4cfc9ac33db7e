/* Graph op rows (see graph/opsimpl.h). */
#include "config.h"

#include "graph/opsimpl.h"

const GraphOp GraphOps_nn[] = {
   { "", 0, -1, PAT_OPAQUE, "", NULL, NULL },
};
const int GraphOps_nnCount = 0;
