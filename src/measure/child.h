/* The runner process: owns one GPU through the CUDA driver, keeps the task's inputs
 * and reference output on it, and checks and times the programs the tuner sends
 * (protocol.h). A fault in a kernel ends only this process. */
#ifndef HEADER_child
#define HEADER_child

/* Serves the tuner on socket fd for CUDA device `ordinal` until QUIT or the socket
 * closes; the calling thread, the runner process's, is named "measure". Returns the process's exit status: 0 after QUIT, 1 when there is no device,
 * 2 on a protocol error, 3 after an error that left the CUDA context unusable. */
int RunnerChild_main(int fd, int ordinal);

#endif
