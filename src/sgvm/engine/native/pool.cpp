// sgvm native backend: the threads a launch runs on (engine/native/pool.py explains why).
// One launch at a time runs on the pool (another one meanwhile runs on its calling thread
// alone); its work-groups are cut into chunks that the calling thread and the pool's threads
// take by an atomic counter, so the caller starts at once and a helper that wakes late takes
// fewer chunks. Compiled as C++ without its library.
#define _GNU_SOURCE 1
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

typedef unsigned long long u64;
typedef unsigned int u32;
// a kernel's entry point (skeleton.py): context, argument words, first work-group (unit of
// W) and how many, the thread's frame, local memory and private arena, lanes per frame
typedef int (*Kernel)(const void *, const void *, u64, u64, void *, void *, void *, u32);

// a helper spins SPIN_NS after a launch, and up to ALERT_NS after sg_pool_wake
// (NO_MEMORY: the status of a chunk whose thread could not get its scratch; pool.py's)
enum { MAX_HELPERS = 255, SPIN_NS = 50000, ALERT_NS = 2000000, NO_MEMORY = 0x7fffffff };

// One thread's frame, local memory and private arena, grown as launches need, 64-byte aligned.
struct Scratch {
  void *raw[3], *at[3];
  u64 size[3];
};

static int fit(Scratch *s, const u64 *sizes) {
  for (int i = 0; i < 3; i++) {
    if (s->size[i] >= sizes[i]) continue;
    free(s->raw[i]);
    u64 n = sizes[i] < 64 ? 64 : sizes[i];
    s->raw[i] = malloc(n + 63);
    s->size[i] = s->raw[i] ? n : 0;
    s->at[i] = (void *)(((uintptr_t)s->raw[i] + 63) & ~(uintptr_t)63);
    if (!s->raw[i]) return NO_MEMORY;
  }
  return 0;
}

// The launch in flight: written by the caller before it publishes the ticket, read by a
// thread only after it claimed a chunk of that ticket (so it cannot change meanwhile).
static struct {
  Kernel fn;
  const void *ctx, *args;
  u64 total, step, W, sizes[3];
  u32 pm, chunks;
} job;
static u64 ticket;        // generation << 32 | chunks not yet claimed
static u32 finished;      // chunks run to their end in this generation
static int status;        // the largest status a chunk returned
static u32 generation;    // bumped per launch; the pool's threads wait for it to change
static u32 alerts;        // bumped by sg_pool_wake: a launch is on its way

struct Helper {
  pthread_t thread;
  Scratch scratch;
  int invited;            // takes part in the current launch
  int cpu, placed;        // the CPU to hold this thread on (-1: anywhere), the one it holds
  u32 seen;               // the last generation it saw (at its start: the one before its first)
};
static Helper helpers[MAX_HELPERS];
static int started;       // helpers running
static int sleeping;      // helpers waiting on `wake`
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER, launch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_key_t own_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void keep_max(int *at, int v) {
  int old = __atomic_load_n(at, __ATOMIC_RELAXED);
  while (v > old && !__atomic_compare_exchange_n(at, &old, v, true, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED)) {}
}

// Runs chunks of launch `gen` until none is left (or a newer launch began).
static void take_chunks(Scratch *s, u32 gen) {
  for (;;) {
    u64 t = __atomic_load_n(&ticket, __ATOMIC_ACQUIRE);
    do {
      if ((u32)(t >> 32) != gen || (u32)t == 0) return;
    } while (!__atomic_compare_exchange_n(&ticket, &t, t - 1, true, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
    u64 first = (u64)(job.chunks - (u32)t) * job.step;
    u64 count = job.total - first < job.step ? job.total - first : job.step;
    int rc = fit(s, job.sizes);
    if (rc == 0)
      rc = job.fn(job.ctx, job.args, first * job.W, count * job.W, s->at[0], s->at[1], s->at[2],
                  job.pm);
    if (rc) keep_max(&status, rc);
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELEASE);
  }
}

static u64 now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (u64)t.tv_sec * 1000000000ull + (u64)t.tv_nsec;
}

static void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static void hold(Helper *h) {
#ifdef __linux__
  int cpu = __atomic_load_n(&h->cpu, __ATOMIC_RELAXED);
  if (cpu < 0 || cpu == h->placed) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0) h->placed = cpu;
#else
  (void)h;
#endif
}

// A helper: spins a while after each launch (the next one often follows at once), then sleeps
// until a launch or an alert (which it answers by spinning longer).
static void *helper_main(void *arg) {
  Helper *h = (Helper *)arg;
  u32 seen = h->seen;
  for (u64 spin = SPIN_NS;;) {
    u32 gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
    for (u64 until = now_ns() + spin; gen == seen && now_ns() < until;) {
      for (int i = 0; i < 64; i++) relax();
      gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
    }
    if (gen == seen) {
      pthread_mutex_lock(&wake_lock);
      sleeping++;
      for (u32 alert = alerts; (gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE)) == seen &&
                               alerts == alert;)
        pthread_cond_wait(&wake, &wake_lock);
      sleeping--;
      pthread_mutex_unlock(&wake_lock);
      spin = ALERT_NS;
      if (gen == seen) continue;
    }
    seen = gen, spin = SPIN_NS;
    if (!__atomic_load_n(&h->invited, __ATOMIC_ACQUIRE)) continue;
    hold(h);
    take_chunks(&h->scratch, gen);
  }
  return 0;
}

// Wakes sleeping helpers for a launch about to come (its arguments are still being prepared),
// so that waking them (a few hundred microseconds for an idle CPU of some virtual machines)
// overlaps that work.
extern "C" void sg_pool_wake() {
  pthread_mutex_lock(&wake_lock);
  if (sleeping) {
    alerts++;
    pthread_cond_broadcast(&wake);
  }
  pthread_mutex_unlock(&wake_lock);
}

static void free_own(void *s) {
  Scratch *own = (Scratch *)s;
  for (int i = 0; i < 3; i++) free(own->raw[i]);
  free(own);
}

// A child of fork() has only the thread that forked: it starts a pool of its own.
static void forget_helpers() {
  started = sleeping = 0;
  pthread_mutex_init(&wake_lock, 0);
  pthread_mutex_init(&launch_lock, 0);
  pthread_cond_init(&wake, 0);
}

static void set_up() {
  pthread_key_create(&own_key, free_own);
  pthread_atfork(0, 0, forget_helpers);
}

static Scratch *own_scratch() {
  Scratch *s = (Scratch *)pthread_getspecific(own_key);
  if (!s && (s = (Scratch *)calloc(1, sizeof(Scratch)))) pthread_setspecific(own_key, s);
  return s;
}

// The CPUs to hold helpers on: those this process may use, starting after the caller's.
static void place(int n) {
#ifdef __linux__
  cpu_set_t allowed;
  int here = sched_getcpu(), others[1024], k = 0;
  if (here >= 0 && sched_getaffinity(0, sizeof allowed, &allowed) == 0 &&
      CPU_ISSET(here, &allowed) && CPU_COUNT(&allowed) > 1) {
    for (int c = here + 1; c < here + CPU_SETSIZE && k < 1024; c++)
      if (CPU_ISSET(c % CPU_SETSIZE, &allowed)) others[k++] = c % CPU_SETSIZE;
  }
  for (int i = 0; i < n; i++)
    __atomic_store_n(&helpers[i].cpu, k ? others[i % k] : -1, __ATOMIC_RELAXED);
#else
  (void)n;
#endif
}

// Runs work-groups [0, total) (in units of W) of kernel `fn` as `chunks` chunks of `step` on
// `threads` threads, the calling one among them; `frame`, `local`, `priv`: bytes of a thread's
// scratch. Returns the largest status a chunk returned << 32 | the chunks it ran as.
extern "C" long long sg_pool_run(Kernel fn, const void *ctx, const void *args, u64 total, u64 W,
                           u32 chunks, u64 step, u32 threads, u64 frame, u64 local, u64 priv,
                           u32 pm) {
  pthread_once(&once, set_up);
  Scratch *own = own_scratch();
  if (!own) return (long long)NO_MEMORY << 32;
  u64 sizes[3] = {frame, local, priv};
  // one chunk, or the pool busy with another thread's launch: this thread runs it alone
  if (threads <= 1 || chunks <= 1 || pthread_mutex_trylock(&launch_lock) != 0) {
    if (fit(own, sizes)) return (long long)NO_MEMORY << 32 | 1;
    return (long long)fn(ctx, args, 0, total * W, own->at[0], own->at[1], own->at[2], pm) << 32 | 1;
  }
  int want = (int)(threads - 1 < chunks - 1 ? threads - 1 : chunks - 1);
  if (want > MAX_HELPERS) want = MAX_HELPERS;
  for (; started < want; started++) {
    Helper *h = &helpers[started];
    h->placed = -1, h->seen = generation;
    if (pthread_create(&h->thread, 0, helper_main, h) != 0) break;  // run on fewer threads
    pthread_detach(h->thread);
  }
  job.fn = fn, job.ctx = ctx, job.args = args, job.total = total, job.W = W, job.pm = pm;
  job.sizes[0] = frame, job.sizes[1] = local, job.sizes[2] = priv;
  job.chunks = chunks, job.step = step;
  __atomic_store_n(&finished, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&status, 0, __ATOMIC_RELAXED);
  place(started);
  for (int i = 0; i < started; i++) __atomic_store_n(&helpers[i].invited, i < want, __ATOMIC_RELAXED);
  pthread_mutex_lock(&wake_lock);
  u32 gen = generation + 1;
  __atomic_store_n(&ticket, (u64)gen << 32 | job.chunks, __ATOMIC_RELEASE);
  __atomic_store_n(&generation, gen, __ATOMIC_RELEASE);
  if (sleeping) pthread_cond_broadcast(&wake);
  pthread_mutex_unlock(&wake_lock);
  take_chunks(own, gen);
  for (u64 spins = 0; __atomic_load_n(&finished, __ATOMIC_ACQUIRE) != job.chunks; spins++) {
    if (spins < 4096) relax();
    else sched_yield();  // a helper was preempted: let it run
  }
  int rc = __atomic_load_n(&status, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&launch_lock);
  return (long long)rc << 32 | chunks;
}
