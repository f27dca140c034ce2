#include "onnx_light/runtime/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <exception>
#include <fstream>
#include <set>
#include <string>
#include <utility>

#include "onnx_light/runtime/cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace onnx_light {
namespace {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// How long an idle worker polls for the next section before it sleeps: long enough to
// cover the gap between two kernels of one run (a few microseconds), short enough that
// an idle session does not hold a core.
constexpr int kSpinRounds = 1 << 14;

// A section's state word: generation (32 bits), chunk count (16), next unclaimed chunk
// (16). One word, so a claim can never pair one section's count with another's job.
constexpr uint64_t Pack(uint64_t generation, uint64_t chunks, uint64_t next) {
  return generation << 32 | chunks << 16 | next;
}
constexpr uint32_t Generation(uint64_t state) {
  return static_cast<uint32_t>(state >> 32);
}
constexpr uint32_t Chunks(uint64_t state) {
  return static_cast<uint32_t>(state >> 16) & 0xffffu;
}
constexpr uint32_t Next(uint64_t state) {
  return static_cast<uint32_t>(state) & 0xffffu;
}

// fork() copies only the calling thread: a pool's workers are gone in the child, and a
// join of their stale handles would wait forever. The child handler counts forks; a pool
// started before the latest one restarts its workers when next used.
std::atomic<uint32_t> g_forks{0};

void CountFork() {
  g_forks.fetch_add(1, std::memory_order_relaxed);
}

uint32_t Forks() {
  static const bool registered = pthread_atfork(nullptr, nullptr, CountFork) == 0;
  (void)registered;
  return g_forks.load(std::memory_order_acquire);
}

}  // namespace

int PhysicalCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int logical = std::max(1u, std::thread::hardware_concurrency());
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return logical;
  std::set<std::pair<int, int>> cores;  // (package, core)
  int cpus = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    ++cpus;
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    int package = -1, core = -1;
    std::ifstream(dir + "physical_package_id") >> package;
    std::ifstream(dir + "core_id") >> core;
    if (package < 0 || core < 0) return std::max(1, cpus > 0 ? CPU_COUNT(&set) : logical);
    cores.emplace(package, core);
  }
  return std::max<int>(1, static_cast<int>(cores.size()));
}

ThreadPool::ThreadPool(int threads) {
  forks_seen_.store(Forks(), std::memory_order_relaxed);
  StartWorkers(threads - 1);
}

void ThreadPool::StartWorkers(int count) {
  for (int i = 0; i < count; ++i)
    workers_.emplace_back([this] { WorkerLoop(); });
}

void ThreadPool::AbandonAfterFork() {
  // Never joined, detached or destroyed: each would act on a thread id that names nothing
  // in this process, or wait for a vanished waiter. Kept reachable, so not a leak report.
  struct Abandoned {
    std::mutex mu;
    std::vector<std::thread> threads;
    std::vector<std::unique_ptr<Sleep>> sleeps;
  };
  static auto* abandoned = new Abandoned();
  std::lock_guard<std::mutex> lock(abandoned->mu);
  for (std::thread& t : workers_)
    abandoned->threads.push_back(std::move(t));
  workers_.clear();
  abandoned->sleeps.push_back(std::move(sleep_));
}

void ThreadPool::RestartAfterFork() {
  std::lock_guard<std::mutex> restart(restart_mu_);
  const uint32_t forks = g_forks.load(std::memory_order_acquire);
  if (forks_seen_.load(std::memory_order_acquire) == forks) return;  // another caller did it
  const int count = static_cast<int>(workers_.size());
  // A vanished worker may hold the mutex or wait on the condition variable: new ones.
  AbandonAfterFork();
  sleep_ = std::make_unique<Sleep>();
  state_.store(0);
  done_.store(0);
  sleepers_.store(0);
  stop_.store(false);
  busy_.store(false);
  StartWorkers(count);
  forks_seen_.store(forks, std::memory_order_release);
}

ThreadPool::~ThreadPool() {
  if (forks_seen_.load(std::memory_order_acquire) != g_forks.load(std::memory_order_acquire)) {
    // Forked since the workers started, and never used here: they do not exist, and the
    // condition variable they slept on still counts them (destroying it would wait for them).
    AbandonAfterFork();
    return;
  }
  stop_.store(true);
  {
    std::lock_guard<std::mutex> lock(sleep_->mu);
    state_.store(
        Pack(Generation(state_.load()) + 1u, 0, 0));  // wakes pollers; no section is running
  }
  sleep_->wake.notify_all();
  for (std::thread& t : workers_)
    t.join();
}

bool ThreadPool::RunOneChunk(uint64_t state) {
  // Claim chunk Next(state) of this generation; a successful claim means the section is
  // still running (its caller waits for this chunk), so the job fields are stable.
  while (Next(state) < Chunks(state)) {
    if (state_.compare_exchange_weak(state, state + 1, std::memory_order_acq_rel,
                                     std::memory_order_acquire)) {
      const int64_t begin = static_cast<int64_t>(Next(state)) * job_chunk_;
      const int64_t end = std::min(job_n_, begin + job_chunk_);
      (*job_)(begin, end);
      done_.fetch_add(1, std::memory_order_acq_rel);
      return true;
    }
  }
  return false;
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk, ParallelBody fn) {
  if (n <= 0) return;
  if (forks_seen_.load(std::memory_order_relaxed) != g_forks.load(std::memory_order_relaxed))
    RestartAfterFork();
  min_chunk = std::max<int64_t>(min_chunk, 1);
  const int64_t max_chunks = std::max<int64_t>(1, n / min_chunk);
  const int64_t want = std::min<int64_t>({threads(), max_chunks, 0xffff});
  if (want <= 1) {
    fn(0, n);
    return;
  }
  const int64_t chunk = (n + want - 1) / want;
  const int chunks = static_cast<int>((n + chunk - 1) / chunk);  // none starts past n
  // The workers serve one parallel section at a time: a caller that finds them busy
  // (another run of the session, or a section nested in one) runs the same chunks itself,
  // one after another, so results never depend on whether the workers were free.
  if (busy_.exchange(true, std::memory_order_acquire)) {
    for (int64_t begin = 0; begin < n; begin += chunk)
      fn(begin, std::min(begin + chunk, n));
    return;
  }
  // A chunk that throws (a kernel's std::bad_alloc) must not end a worker thread, which
  // would terminate the process, nor unwind the caller while workers still run chunks of
  // fn: the first exception is kept, and rethrown once every chunk has ended.
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  auto guard = [&](int64_t begin, int64_t end) {
    try {
      fn(begin, end);
    } catch (...) {
      if (!failed.exchange(true, std::memory_order_acq_rel)) error = std::current_exception();
    }
  };
  // Publish the section: its fields first, then a new generation with no chunk claimed.
  const ParallelBody guarded(guard);
  job_ = &guarded;
  job_n_ = n;
  job_chunk_ = chunk;
  done_.store(0, std::memory_order_relaxed);
  const uint32_t generation = Generation(state_.load(std::memory_order_relaxed)) + 1u;
  state_.store(Pack(generation, static_cast<uint64_t>(chunks), 0), std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lock(sleep_->mu);
    sleep_->wake.notify_all();
  }
  // The caller claims chunks too, so a section finishes even when no worker wakes in time.
  while (RunOneChunk(state_.load(std::memory_order_acquire))) {
  }
  for (int spins = 0; done_.load(std::memory_order_acquire) < chunks; ++spins) {
    if (spins < kSpinRounds) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
  busy_.store(false, std::memory_order_release);
  if (error) std::rethrow_exception(error);
}

void ThreadPool::WorkerLoop() {
  uint32_t seen = Generation(state_.load(std::memory_order_acquire));
  for (;;) {
    uint64_t state = state_.load(std::memory_order_acquire);
    for (int spins = 0; Generation(state) == seen && spins < kSpinRounds; ++spins) {
      CpuRelax();
      state = state_.load(std::memory_order_acquire);
    }
    if (Generation(state) == seen) {
      Sleep& sleep = *sleep_;
      std::unique_lock<std::mutex> lock(sleep.mu);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      sleep.wake.wait(lock, [&] {
        state = state_.load(std::memory_order_seq_cst);
        return Generation(state) != seen || stop_.load();
      });
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (stop_.load()) return;
    seen = Generation(state);
    while (RunOneChunk(state_.load(std::memory_order_acquire))) {
    }
  }
}

}  // namespace onnx_light
