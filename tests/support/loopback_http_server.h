// A minimal HTTP/1.1 file server on 127.0.0.1 for store tests: serves one body at every path ending
// in ".gguf" (404 elsewhere), honours "Range: bytes=N-" (206 / 416), can cut the connection after a
// number of body bytes to simulate an interrupted download, and counts what it was asked.
// One request per connection ("Connection: close").
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace a3s::power::store::testing {

class LoopbackHttpServer {
 public:
  explicit LoopbackHttpServer(std::string body);
  ~LoopbackHttpServer();
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  uint16_t port() const { return port_; }
  std::string url(const std::string& path = "/models/stories260K.gguf") const;

  // The next `count` responses close the connection after `bytes` body bytes.
  void cut_after(uint64_t bytes, int count = 1);
  void set_honour_range(bool on) { honour_range_ = on; }      // false: always 200 with the full body
  void set_content_length(bool on) { content_length_ = on; }  // false: close-delimited body
  void set_pause_per_chunk_us(int us) { pause_us_ = us; }     // slows transfers (16 KiB chunks)
  void set_body(std::string body);

  int requests() const { return requests_; }
  int full_bodies_sent() const { return full_bodies_; }  // responses that sent the whole body from 0
  std::vector<std::string> range_headers() const;        // Range header values received, in order
  std::vector<std::string> paths() const;                // request targets received, in order

 private:
  void accept_loop();
  void serve(int fd);

  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::vector<std::thread> workers_;
  std::string body_;
  std::vector<std::string> ranges_, paths_;
  uint64_t cut_bytes_ = 0;
  int cut_count_ = 0;
  std::atomic<bool> honour_range_{true}, content_length_{true};
  std::atomic<int> pause_us_{0};
  std::atomic<int> requests_{0}, full_bodies_{0};
};

}  // namespace a3s::power::store::testing
