#include "onnx_light/runtime/thread_pool.h"

#include <algorithm>

namespace onnx_light {

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i)
    workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (std::thread& t : workers_)
    t.join();
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(min_chunk, 1);
  const int64_t max_chunks = std::max<int64_t>(1, n / min_chunk);
  const int chunks = static_cast<int>(std::min<int64_t>(threads(), max_chunks));
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  const int64_t chunk = (n + chunks - 1) / chunks;
  // The workers serve one parallel section at a time: a caller that finds them busy
  // (another run of the session, or a section nested in one) runs the same chunks itself,
  // one after another, so results never depend on whether the workers were free.
  if (busy_.exchange(true, std::memory_order_acquire)) {
    for (int64_t begin = 0; begin < n; begin += chunk)
      fn(begin, std::min(begin + chunk, n));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &fn;
    job_n_ = n;
    job_chunk_ = chunk;
    job_chunks_ = chunks;
    pending_ = chunks - 1;
    ++generation_;
  }
  start_cv_.notify_all();
  fn(0, std::min(chunk, n));  // chunk 0 on the calling thread
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [this] { return pending_ == 0; });
  job_ = nullptr;
  busy_.store(false, std::memory_order_release);
}

void ThreadPool::WorkerLoop(int index) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int64_t, int64_t)>* job;
    int64_t begin, end;
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= job_chunks_) continue;
      job = job_;
      begin = index * job_chunk_;
      end = std::min(job_n_, begin + job_chunk_);
    }
    if (begin < end) (*job)(begin, end);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

}  // namespace onnx_light
