#include "config.h"
#include "testutil.h"
int main(void) { return TestUtil_skipAll("NVRTC tests not written yet"); }
