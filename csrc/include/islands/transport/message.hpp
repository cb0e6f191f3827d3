#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace islands {

//! What a message between instances carries. The values are on the wire: never renumber one;
//! add new kinds at the end (and teach is_known_message_type about them).
//! fragment: a participant's whole part of a distributed transaction, to execute and prepare.
//! vote: a participant's phase-1 answer (commit, abort or read-only; in the payload).
//! decision: the coordinator's phase-2 outcome.
//! ack: a participant's acknowledgement of a decision (also the ping-pong reply).
//! shutdown: the sender sends nothing more on this channel.
//! hello: the transport's own handshake (unix sockets); never handed to, or sent by, a user.
//! validate: occ, several participants: validate your reads again, now that every participant
//!   holds its write set locked (answered with a vote).
enum class MessageType : std::uint16_t {
  fragment = 1,
  vote = 2,
  decision = 3,
  ack = 4,
  shutdown = 5,
  hello = 6,
  validate = 7,
};

//! Why a received record was accepted or rejected. Counted per reason by every transport.
//! ok: a well-formed message.
//! truncated: fewer bytes than the header, or than the header says the message holds.
//! trailing_bytes: more bytes in the record than the header says the message holds.
//! bad_magic: the first four bytes are not kMessageMagic (not one of our messages at all).
//! bad_version: a header version this build does not speak.
//! unknown_type: a type value that is not a MessageType this build knows.
//! too_long: a message (header and payload) longer than the configured max_message_bytes.
//! wrong_source: the header's source is not the peer whose channel delivered it.
//! bad_frame: a transport frame around the message is inconsistent (shared-memory ring).
//! protocol: well formed but out of place (a hello where none belongs, data before a hello).
enum class DecodeStatus : std::uint8_t {
  ok,
  truncated,
  trailing_bytes,
  bad_magic,
  bad_version,
  unknown_type,
  too_long,
  wrong_source,
  bad_frame,
  protocol,
};

//! Number of DecodeStatus values (the size of per-reason counter arrays).
constexpr std::size_t kDecodeStatusCount = 10;

//! "ISLD" as bytes on the wire (little-endian u32).
constexpr std::uint32_t kMessageMagic = 0x444C5349u;
//! The one header version this build writes and accepts.
constexpr std::uint16_t kMessageVersion = 1;
//! Bytes of the fixed header on the wire: magic u32, version u16, type u16, payload length u32,
//! source u32, transaction id u64, all little-endian, in that order.
constexpr std::size_t kMessageHeaderBytes = 24;

//! The fixed header of a message as decoded from, or about to be written to, the wire.
struct MessageHeader {
  std::uint32_t magic = kMessageMagic;     //!< kMessageMagic
  std::uint16_t version = kMessageVersion; //!< kMessageVersion
  MessageType type = MessageType::fragment;  //!< what the payload is
  std::uint32_t payload_length = 0;        //!< payload bytes after the header
  std::uint32_t source = 0;                //!< sending instance
  std::uint64_t txn_id = 0;                //!< distributed transaction the message belongs to
};

//! One message: the header fields a user sets plus the opaque payload.
struct Message {
  MessageType type = MessageType::fragment;  //!< what the payload is
  std::uint64_t txn_id = 0;                  //!< distributed transaction id
  std::uint32_t source = 0;                  //!< sender; stamped by Transport::send
  std::vector<std::uint8_t> payload;         //!< opaque bytes (keys and operations, later)
};

//! True for the MessageType values this build knows.
bool is_known_message_type(std::uint16_t value);
//! "fragment", "vote", ...; "unknown" for values this build does not know.
const char* message_type_name(MessageType type);
//! The MessageType called name; throws std::invalid_argument listing the valid names.
MessageType parse_message_type(const char* name);
//! "ok", "truncated", ... (the names used in statistics).
const char* decode_status_name(DecodeStatus status);

//! The header that goes in front of message's payload, with the given source.
MessageHeader header_of(const Message& message, std::uint32_t source);
//! Writes header as kMessageHeaderBytes bytes at out.
void encode_header(const MessageHeader& header, std::uint8_t* out);
//! Appends the whole encoded message (header then payload) to out.
void encode_into(const Message& message, std::uint32_t source, std::vector<std::uint8_t>& out);
//! The whole encoded message with message.source as its source.
std::vector<std::uint8_t> encode(const Message& message);

//! Validates the fixed header at the start of data[0, size) (size may run past it) against
//! max_message_bytes (header plus payload). Reads no byte at or past data + size; never throws.
DecodeStatus decode_header(const std::uint8_t* data, std::size_t size,
                           std::size_t max_message_bytes, MessageHeader& out);
//! Decodes one whole record data[0, size) that must hold exactly one message. On ok fills out
//! (reusing its payload's capacity); otherwise leaves out unspecified. Never throws on bad
//! bytes, never reads out of bounds.
DecodeStatus decode(const std::uint8_t* data, std::size_t size, std::size_t max_message_bytes,
                    Message& out);

}  // namespace islands
