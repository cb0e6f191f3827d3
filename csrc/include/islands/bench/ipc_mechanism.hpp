#pragma once
#include <string>
#include <vector>

namespace islands {

//! The inter-process messaging mechanisms the IPC benchmark compares (paper 000, Fig 2).
//! unix_stream, unix_seqpacket: a connected AF_UNIX socket pair (SOCK_STREAM / SOCK_SEQPACKET).
//! pipe: two anonymous pipes, one per direction. fifo: two named pipes (mkfifo).
//! tcp: a TCP connection on 127.0.0.1 with TCP_NODELAY. mqueue: two POSIX message queues.
//! shm_ring: two single-producer single-consumer rings in shared memory, busy-waiting.
enum class IpcMechanism { unix_stream, unix_seqpacket, pipe, fifo, tcp, mqueue, shm_ring };

const char* ipc_mechanism_name(IpcMechanism mechanism);   //!< e.g. "unix_stream"
IpcMechanism parse_ipc_mechanism(const std::string& name);  //!< throws std::invalid_argument naming the choices
std::vector<IpcMechanism> all_ipc_mechanisms();           //!< every mechanism, in figure order

}  // namespace islands
