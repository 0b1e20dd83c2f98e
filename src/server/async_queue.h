// A queue from worker threads to a coroutine on an Asio executor: push() from any thread, co_await
// pop() on the executor. The waiting side sleeps on a timer that push() cancels through the
// executor, so a wake-up can never be lost (check and wait happen in one step on the executor).
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace a3s::power::server {

template <typename T>
class AsyncQueue : public std::enable_shared_from_this<AsyncQueue<T>> {
 public:
  explicit AsyncQueue(boost::asio::any_io_executor ex) : ex_(ex), timer_(ex) {}

  // Thread-safe. Returns the number of items now waiting.
  size_t push(T item) {
    size_t n;
    {
      std::lock_guard lk(mu_);
      items_.push_back(std::move(item));
      n = items_.size();
    }
    boost::asio::post(ex_, [self = this->shared_from_this()] { self->timer_.cancel(); });
    return n;
  }

  // Wakes a pending pop() without an item (it then returns nullopt). Thread-safe.
  void interrupt() {
    boost::asio::post(ex_, [self = this->shared_from_this()] {
      self->interrupted_ = true;
      self->timer_.cancel();
    });
  }

  // Next item, or nullopt after interrupt(). Must run on the executor.
  boost::asio::awaitable<std::optional<T>> pop() {
    for (;;) {
      {
        std::lock_guard lk(mu_);
        if (!items_.empty()) {
          T item = std::move(items_.front());
          items_.pop_front();
          co_return std::optional<T>(std::move(item));
        }
      }
      if (interrupted_) {
        interrupted_ = false;
        co_return std::nullopt;
      }
      boost::system::error_code ec;
      timer_.expires_after(std::chrono::hours(24));
      co_await timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    }
  }

 private:
  boost::asio::any_io_executor ex_;
  boost::asio::steady_timer timer_;
  std::mutex mu_;
  std::deque<T> items_;
  bool interrupted_ = false;  // touched on the executor only
};

}  // namespace a3s::power::server
