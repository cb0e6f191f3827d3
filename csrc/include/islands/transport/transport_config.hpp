#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace islands {

//! How one instance's endpoint of an N-instance mesh is set up. One struct, one place for
//! every field's meaning and default; validate_transport_config checks it once.
struct TransportConfig {
  //! Private run directory shared by the instances of one run: sockets and ring files live
  //! here. Created with mode 0700 if missing; an existing one must be a directory owned by
  //! this user with no group or other permissions. Put it on tmpfs (/dev/shm,
  //! $XDG_RUNTIME_DIR): ring files on a disk file system get written back (see warnings()).
  std::string directory;
  //! This endpoint's instance, in [0, n_instances).
  std::uint32_t instance_id = 0;
  //! Instances in the mesh (at least 1; every pair is connected both ways).
  std::uint32_t n_instances = 1;
  //! Bytes of buffering per direction per pair: the data area of each shared-memory ring
  //! (a power of two, at least 4096 and at least max_message_bytes + 16), or the SO_SNDBUF
  //! asked for on each unix socket (the kernel caps it at net.core.wmem_max).
  std::size_t ring_bytes = 256 * 1024;
  //! Longest message accepted, header included (24 bytes up to 1 MiB). A received message
  //! claiming more is rejected as too_long; sending one throws.
  std::size_t max_message_bytes = 64 * 1024;
  //! How long setup waits for a peer's socket or ring file to appear before failing with an
  //! error naming the peer and the path.
  std::uint32_t attach_timeout_ms = 10000;
  //! A malformed record is an error (poll throws std::runtime_error naming the channel and
  //! the reason) instead of being counted and dropped. For the endpoints of one deployment,
  //! which only ever send each other well-formed records: there a malformed one means the
  //! channel was overwritten, and dropping it would lose a message (a vote, a shutdown) and
  //! stall the run.
  bool strict = false;
};

//! Smallest ring_bytes accepted.
constexpr std::size_t kMinRingBytes = 4096;
//! Largest max_message_bytes accepted.
constexpr std::size_t kMaxMessageBytesLimit = 1024 * 1024;

//! Throws std::invalid_argument naming the first wrong field and why.
void validate_transport_config(const TransportConfig& config);

}  // namespace islands
