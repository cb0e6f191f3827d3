#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "islands/transport/run_directory.hpp"
#include "islands/transport/spsc_ring.hpp"
#include "islands/transport/transport.hpp"

namespace islands {

//! Shared-memory transport: one SpscRing per direction per pair of instances, polled.
//!
//! Each ring is a file `<directory>/ring-<src>-to-<dst>` (mode 0600) mapped shared by both
//! processes, rather than a shm_open segment: everything a run leaves lives in its private
//! directory, so a crash leaves nothing outside it and one `rm -r` of the directory cleans up.
//! Put the directory on tmpfs; elsewhere the kernel writes the dirty ring pages back to disk
//! (a warning says so).
//!
//! Set-up: instance i creates its inbound rings ring-j-to-i for every peer j (each built under
//! a temporary name and linked into place once initialised, so a peer never maps a half-made
//! ring), then maps every outbound ring ring-i-to-j, waiting up to attach_timeout_ms for j to
//! create it. cleanup unlinks the inbound rings i created and marks them closed.
//!
//! send copies header and payload into the ring to dest: false when it is full, a
//! std::runtime_error when dest has closed its endpoint or its process is gone. poll visits
//! the inbound rings round-robin, validating every frame and header before trusting a length;
//! a corrupt frame discards what the ring holds (resynchronises) and counts bad_frame.
class ShmRingTransport final : public Transport {
 public:
  //! Creates this instance's inbound rings and attaches to its peers' (see the class comment).
  explicit ShmRingTransport(const TransportConfig& config);
  //! Calls cleanup.
  ~ShmRingTransport() override;

  //! Transport::send (see the class comment for when it is full or fails).
  bool send(std::uint32_t dest, const Message& message) override;
  //! Transport::send_raw.
  bool send_raw(std::uint32_t dest, const std::uint8_t* data, std::size_t size) override;
  //! Transport::poll.
  bool poll(Message& out) override;
  //! Transport::cleanup; also run by the destructor and by a constructor that fails.
  void cleanup() override;
  //! Whether any inbound ring holds a record (or something corrupt), consuming nothing.
  bool pending() override;
  //! "shm".
  const char* name() const override { return "shm"; }

  //! The most peers whose rings a look watches directly (Transport::watches_); with more, senders
  //! ring the receiver's doorbell after each message and a look is one load.
  static constexpr std::uint32_t kMaxWatchedRings = 16;

  //! File name (in the run directory) of the ring carrying src's messages to dst.
  static std::string ring_name(std::uint32_t src, std::uint32_t dst);

 private:
  struct Mapping {
    void* address = nullptr;
    std::size_t bytes = 0;
    std::string path;      // file name, kept for messages and cleanup
    bool created = false;  // this endpoint created (and so unlinks) the file
    SpscRing ring;
  };

  Mapping create_inbound(std::uint32_t src);
  Mapping attach_outbound(std::uint32_t dst);
  bool push(std::uint32_t dest, const void* first, std::size_t first_len, const void* second,
            std::size_t second_len);
  void unmap_all() noexcept;
  // Points watches_ at where each inbound ring's next record will appear.
  void refresh_watches();
  // "ring <path> from peer instance <src>" (error messages).
  std::string inbound_name(std::uint32_t src) const {
    return "ring " + inbound_[src].path + " from peer instance " + std::to_string(src);
  }

  RunDirectory directory_;
  std::vector<Mapping> inbound_;   // indexed by source instance (own slot unused)
  std::vector<Mapping> outbound_;  // indexed by destination instance (own slot unused)
  std::uint32_t next_source_ = 0;  // round-robin start of the next poll
  bool closed_ = false;
};

//! Factory for the registry: a ShmRingTransport.
std::unique_ptr<Transport> make_shm_transport(const TransportConfig& config);

}  // namespace islands
