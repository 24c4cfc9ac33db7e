#include "config.h"
#include "testutil.h"
static void placeholder(void **state) { (void)state; assert_int_equal(1, 1); }
int main(void) {
   const struct CMUnitTest tests[] = { cmocka_unit_test(placeholder) };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
