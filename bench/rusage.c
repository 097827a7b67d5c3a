/*
 * Runs a command with its output to /dev/null and prints, on stderr, its wall seconds, its CPU
 * seconds (user + system of every thread, from wait4's rusage: microseconds, where GNU time
 * prints hundredths), its peak RSS in KiB and its exit status. bench/per-file.mjs compiles it
 * with the system C compiler on first use (Node's child_process gives no child's rusage).
 *
 *   rusage COMMAND [ARGS...]   ->   "WALL CPU MAXRSS_KIB STATUS"
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: rusage COMMAND [ARGS...]\n");
    return 2;
  }
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  pid_t child = fork();
  if (child == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  if (child < 0 || wait4(child, &status, 0, &usage) < 0) return 1;
  clock_gettime(CLOCK_MONOTONIC, &end);
  double wall = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
  double cpu = (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
  fprintf(stderr, "%.6f %.6f %ld %d\n", wall, cpu, usage.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return 0;
}
