/* The compute DAG: construction, index folding, printing, Ansor's FLOP counting rules
 * and direct interpretation, on small hand-built DAGs. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "te/dag.h"

static const char *const ij[] = { "i", "j" };

/* C[i, j] = sum_k A[i, k] * B[j, k] on 2x3 . (2x3)^T */
static int buildMatmul(Dag *g) {
   int64_t sa[2] = { 2, 3 }, sc[2] = { 2, 2 };
   int a = Dag_placeholder(g, "A", 2, sa);
   int b = Dag_placeholder(g, "B", 2, sa);
   int c = Dag_compute(g, "C", 2, sc, ij);
   int k = Dag_reduceAxis(g, c, "k", 3);
   int32_t ia[2] = { Expr_axis(g, 0), Expr_axis(g, k) };
   int32_t ib[2] = { Expr_axis(g, 1), Expr_axis(g, k) };
   Dag_setBody(g, c, REDUCE_SUM, Expr_mul(g, Expr_load(g, a, 2, ia), Expr_load(g, b, 2, ib)));
   return c;
}

static void test_matmul_structure(void **state) {
   (void)state;
   Dag g;
   Dag_init(&g);
   int c = buildMatmul(&g);
   assert_int_equal(g.nstages, 3);
   assert_int_equal(Dag_output(&g), c);
   assert_int_equal(Dag_numInputs(&g), 2);
   assert_int_equal(Dag_input(&g, 0), 0);
   assert_int_equal(Dag_input(&g, 1), 1);
   assert_int_equal(Dag_input(&g, 2), -1);
   int readers[4];
   assert_int_equal(Dag_readers(&g, 0, readers, 4), 1);
   assert_int_equal(readers[0], c);
   assert_int_equal(Dag_readers(&g, c, readers, 4), 0);
   assert_int_equal(Dag_numElements(&g, c), 4);
   Dag_done(&g);
}

static void test_matmul_flops_and_text(void **state) {
   (void)state;
   Dag g;
   Dag_init(&g);
   int c = buildMatmul(&g);
   /* 2x2 outputs, 3 iterations each of (1 mul + 1 combiner add) = 24 */
   assert_true(Dag_estimateFlops(&g) == 24.0);
   char buf[128];
   Expr_format(&g, c, g.stages[c].body, buf, sizeof buf);
   assert_string_equal(buf, "A[i, k]*B[j, k]");
   char *text = NULL;
   size_t len = 0;
   FILE *f = open_memstream(&text, &len);
   Dag_print(&g, f);
   fclose(f);
   assert_string_equal(text, "A = placeholder[2, 3]\n"
                             "B = placeholder[2, 3]\n"
                             "C[i, j] += A[i, k]*B[j, k]    for k in 0..3\n");
   free(text);
   Dag_done(&g);
}

static void test_matmul_evaluate(void **state) {
   (void)state;
   Dag g;
   Dag_init(&g);
   buildMatmul(&g);
   float a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 1, 0, -1, 2, 1, 0 }, c[4];
   float *bufs[3] = { a, b, c };
   Dag_evaluate(&g, bufs);
   /* [1 2 3].[1 0 -1] = -2, [1 2 3].[2 1 0] = 4, [4 5 6].[1 0 -1] = -2, [4 5 6].[2 1 0] = 13 */
   float want[4] = { -2, 4, -2, 13 };
   TestUtil_assertClose(c, want, 4, 0, 0);
   Dag_done(&g);
}

static void test_index_folding(void **state) {
   (void)state;
   Dag g;
   Dag_init(&g);
   int32_t x = Expr_axis(&g, 0);
   /* x*1 + 0 is x itself; 2*3 is 6; floordiv(x, 1) is x; floormod(x, 1) is 0 */
   assert_int_equal(Expr_add(&g, Expr_mul(&g, x, Expr_int(&g, 1)), Expr_int(&g, 0)), x);
   int32_t six = Expr_mul(&g, Expr_int(&g, 2), Expr_int(&g, 3));
   assert_int_equal(Dag_expr(&g, six)->kind, EXPR_INT);
   assert_int_equal(Dag_expr(&g, six)->v.i, 6);
   assert_int_equal(Expr_binary(&g, EXPR_FLOORDIV, x, Expr_int(&g, 1)), x);
   int32_t zero = Expr_binary(&g, EXPR_FLOORMOD, x, Expr_int(&g, 1));
   assert_int_equal(Dag_expr(&g, zero)->v.i, 0);
   /* floor semantics for negative constants, as TVM's floordiv/floormod */
   int32_t q = Expr_binary(&g, EXPR_FLOORDIV, Expr_int(&g, -7), Expr_int(&g, 2));
   int32_t r = Expr_binary(&g, EXPR_FLOORMOD, Expr_int(&g, -7), Expr_int(&g, 2));
   assert_int_equal(Dag_expr(&g, q)->v.i, -4);
   assert_int_equal(Dag_expr(&g, r)->v.i, 1);
   /* floats are never folded: 0.0*x stays a multiplication a FLOP counter sees */
   int32_t f = Expr_mul(&g, Expr_float(&g, 1.0), Expr_float(&g, 2.0));
   assert_int_equal(Dag_expr(&g, f)->kind, EXPR_MUL);
   assert_int_equal(Dag_expr(&g, f)->dtype, TE_FLOAT32);
   Dag_done(&g);
}

/* pad[i] = select(i >= 1 && i < 4, X[i - 1], 0); Y[i] = max_r pad[i + r] */
static void test_padding_select_flops_and_eval(void **state) {
   (void)state;
   Dag g;
   Dag_init(&g);
   int64_t n3 = 3, n5 = 5;
   int x = Dag_placeholder(&g, "X", 1, &n3);
   static const char *const iname[] = { "i" };
   int pad = Dag_compute(&g, "pad", 1, &n5, iname);
   int32_t i = Expr_axis(&g, 0);
   int32_t cond = Expr_binary(&g, EXPR_AND, Expr_binary(&g, EXPR_GE, i, Expr_int(&g, 1)),
                              Expr_binary(&g, EXPR_LT, i, Expr_int(&g, 4)));
   int32_t idx = Expr_sub(&g, i, Expr_int(&g, 1));
   Dag_setBody(&g, pad, REDUCE_NONE, Expr_select(&g, cond, Expr_load(&g, x, 1, &idx),
                                                 Expr_float(&g, 0.0)));
   int64_t n3b = 3;
   int y = Dag_compute(&g, "Y", 1, &n3b, iname);
   int r = Dag_reduceAxis(&g, y, "r", 3);
   int32_t at = Expr_add(&g, Expr_axis(&g, 0), Expr_axis(&g, r));
   Dag_setBody(&g, y, REDUCE_MAX, Expr_load(&g, pad, 1, &at));
   /* padding is integer comparisons and a select of loads: 0; the max: 3 outputs x 3 */
   assert_true(Dag_estimateFlops(&g) == 9.0);
   char buf[128];
   Expr_format(&g, pad, g.stages[pad].body, buf, sizeof buf);
   assert_string_equal(buf, "select(i >= 1 && i < 4, X[i - 1], 0.0)");
   float xs[3] = { 5, -1, 2 }, ps[5], ys[3];
   float *bufs[3] = { xs, ps, ys };
   Dag_evaluate(&g, bufs);
   float wantPad[5] = { 0, 5, -1, 2, 0 };
   float wantY[3] = { 5, 5, 2 };   /* max(0,5,-1), max(5,-1,2), max(-1,2,0) */
   TestUtil_assertClose(ps, wantPad, 5, 0, 0);
   TestUtil_assertClose(ys, wantY, 3, 0, 0);
   Dag_done(&g);
}

/* An initialized g holding X[n] and an elementwise stage S[i] over it, its body to set;
 * returns S, and *x gets the load X[i]. */
static int elementwiseStage(Dag *g, int64_t n, int32_t *x) {
   Dag_init(g);
   int in = Dag_placeholder(g, "X", 1, &n);
   static const char *const iname[] = { "i" };
   int s = Dag_compute(g, "S", 1, &n, iname);
   int32_t i = Expr_axis(g, 0);
   *x = Expr_load(g, in, 1, &i);
   return s;
}

/* Intrinsic calls count 0 themselves, their float arguments count; a select counts its
 * condition and its larger branch; a float comparison counts 1. */
static void test_flop_rules_for_calls_and_selects(void **state) {
   (void)state;
   Dag g;
   int32_t v;
   int s = elementwiseStage(&g, 4, &v);
   /* exp(v - 1): 1; select(v > 0, v*2 + 1, v): 1 + max(2, 0); total 4 per element */
   int32_t e = Expr_call(&g, EXPR_EXP, Expr_sub(&g, v, Expr_float(&g, 1.0)));
   int32_t sel = Expr_select(&g, Expr_binary(&g, EXPR_GT, v, Expr_float(&g, 0.0)),
                             Expr_add(&g, Expr_mul(&g, v, Expr_float(&g, 2.0)), Expr_float(&g, 1.0)), v);
   Dag_setBody(&g, s, REDUCE_NONE, Expr_add(&g, e, sel));
   /* the outer add is 1 more: 1 + 3 + 1 = 5 per element, 4 elements */
   assert_true(Dag_estimateFlops(&g) == 20.0);
   float xs[4] = { -1, 0, 1, 2 }, ss[4];
   float *bufs[2] = { xs, ss };
   Dag_evaluate(&g, bufs);
   for (int k = 0; k < 4; k++) {
      double want = exp(xs[k] - 1.0) + (xs[k] > 0 ? xs[k] * 2 + 1 : xs[k]);
      assert_true(fabs(ss[k] - want) < 1e-5);
   }
   Dag_done(&g);
}

/* sigmoid is one intrinsic call, as TVM's: 0 itself, its argument's arithmetic counts */
static void test_sigmoid_call(void **state) {
   (void)state;
   Dag g;
   int32_t v;
   int s = elementwiseStage(&g, 3, &v);
   int32_t body = Expr_call(&g, EXPR_SIGMOID, Expr_mul(&g, v, Expr_float(&g, 2.0)));
   Dag_setBody(&g, s, REDUCE_NONE, body);
   /* the multiply by 2, 3 elements */
   assert_true(Dag_estimateFlops(&g) == 3.0);
   char buf[64];
   Expr_format(&g, s, body, buf, sizeof buf);
   assert_string_equal(buf, "sigmoid(X[i]*2.0)");
   float xs[3] = { 0, 0.5f, -1 }, ss[3];
   float *bufs[2] = { xs, ss };
   Dag_evaluate(&g, bufs);
   /* 1/(1 + e^0), 1/(1 + e^-1), 1/(1 + e^2) */
   float want[3] = { 0.5f, 0.731058579f, 0.119202922f };
   TestUtil_assertClose(ss, want, 3, 1e-6, 0);
   Dag_done(&g);
}

static void test_print_parenthesizes_by_precedence(void **state) {
   (void)state;
   Dag g;
   Dag_init(&g);
   int64_t n = 2;
   Dag_placeholder(&g, "X", 1, &n);
   static const char *const iname[] = { "i" };
   int s = Dag_compute(&g, "S", 1, &n, iname);
   int32_t i = Expr_axis(&g, 0);
   int32_t v = Expr_load(&g, 0, 1, &i);
   /* (v - (v - 1)) * (v + 2) / 3 */
   int32_t inner = Expr_sub(&g, v, Expr_sub(&g, v, Expr_float(&g, 1.0)));
   int32_t e = Expr_binary(&g, EXPR_DIV, Expr_mul(&g, inner, Expr_add(&g, v, Expr_float(&g, 2.0))),
                           Expr_float(&g, 3.0));
   char buf[128];
   Expr_format(&g, s, e, buf, sizeof buf);
   assert_string_equal(buf, "(X[i] - (X[i] - 1.0))*(X[i] + 2.0)/3.0");
   /* a quotient on the right of a product keeps its parentheses: its rounding differs */
   int32_t q = Expr_mul(&g, v, Expr_binary(&g, EXPR_DIV, v, Expr_float(&g, 6.0)));
   Expr_format(&g, s, q, buf, sizeof buf);
   assert_string_equal(buf, "X[i]*(X[i]/6.0)");
   int32_t idx = Expr_binary(&g, EXPR_FLOORDIV, Expr_add(&g, Expr_mul(&g, i, Expr_int(&g, 7)), Expr_int(&g, 3)),
                             Expr_int(&g, 2));
   Expr_format(&g, s, idx, buf, sizeof buf);
   assert_string_equal(buf, "floordiv(i*7 + 3, 2)");
   Dag_done(&g);
}

static void test_copy_is_independent(void **state) {
   (void)state;
   Dag g, h;
   Dag_init(&g);
   buildMatmul(&g);
   Dag_copy(&h, &g);
   Dag_done(&g);
   assert_int_equal(h.nstages, 3);
   assert_true(Dag_estimateFlops(&h) == 24.0);
   Dag_done(&h);
}

int main(void) {
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul_structure),
      cmocka_unit_test(test_matmul_flops_and_text),
      cmocka_unit_test(test_matmul_evaluate),
      cmocka_unit_test(test_index_folding),
      cmocka_unit_test(test_padding_select_flops_and_eval),
      cmocka_unit_test(test_flop_rules_for_calls_and_selects),
      cmocka_unit_test(test_sigmoid_call),
      cmocka_unit_test(test_print_parenthesizes_by_precedence),
      cmocka_unit_test(test_copy_is_independent),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
