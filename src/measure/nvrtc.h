#ifndef HEADER_nvrtc
#define HEADER_nvrtc
#endif
