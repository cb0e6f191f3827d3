#include "islands/transport/message.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace islands {

namespace {

// The wire is little-endian whatever the host; byte shifts say so and compile to plain
// loads and stores on x86 and arm64.
void store_u16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}

void store_u32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

void store_u64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

std::uint16_t load_u16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}

std::uint32_t load_u32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::uint64_t load_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

struct TypeName {
  MessageType type;
  const char* name;
};

// One list for names, parsing and the known-type check, so a new type is added in one place.
constexpr TypeName kTypeNames[] = {
    {MessageType::fragment, "fragment"}, {MessageType::vote, "vote"},
    {MessageType::decision, "decision"}, {MessageType::ack, "ack"},
    {MessageType::shutdown, "shutdown"}, {MessageType::hello, "hello"},
    {MessageType::validate, "validate"},
};

constexpr const char* kStatusNames[kDecodeStatusCount] = {
    "ok",          "truncated",   "trailing_bytes", "bad_magic", "bad_version",
    "unknown_type", "too_long",   "wrong_source",   "bad_frame", "protocol",
};

}  // namespace

bool is_known_message_type(std::uint16_t value) {
  for (const auto& t : kTypeNames) {
    if (static_cast<std::uint16_t>(t.type) == value) return true;
  }
  return false;
}

const char* message_type_name(MessageType type) {
  for (const auto& t : kTypeNames) {
    if (t.type == type) return t.name;
  }
  return "unknown";
}

MessageType parse_message_type(const char* name) {
  std::string valid;
  for (const auto& t : kTypeNames) {
    if (std::strcmp(t.name, name) == 0) return t.type;
    valid += valid.empty() ? t.name : std::string(", ") + t.name;
  }
  throw std::invalid_argument(std::string("message type: unknown type '") + name +
                              "' (choose " + valid + ")");
}

const char* decode_status_name(DecodeStatus status) {
  const auto i = static_cast<std::size_t>(status);
  return i < kDecodeStatusCount ? kStatusNames[i] : "unknown";
}

MessageHeader header_of(const Message& message, std::uint32_t source) {
  MessageHeader h;
  h.type = message.type;
  h.payload_length = static_cast<std::uint32_t>(message.payload.size());
  h.source = source;
  h.txn_id = message.txn_id;
  return h;
}

void encode_header(const MessageHeader& header, std::uint8_t* out) {
  store_u32(out + 0, header.magic);
  store_u16(out + 4, header.version);
  store_u16(out + 6, static_cast<std::uint16_t>(header.type));
  store_u32(out + 8, header.payload_length);
  store_u32(out + 12, header.source);
  store_u64(out + 16, header.txn_id);
}

void encode_into(const Message& message, std::uint32_t source, std::vector<std::uint8_t>& out) {
  const std::size_t start = out.size();
  out.resize(start + kMessageHeaderBytes + message.payload.size());
  encode_header(header_of(message, source), out.data() + start);
  if (!message.payload.empty()) {
    std::memcpy(out.data() + start + kMessageHeaderBytes, message.payload.data(),
                message.payload.size());
  }
}

std::vector<std::uint8_t> encode(const Message& message) {
  std::vector<std::uint8_t> out;
  encode_into(message, message.source, out);
  return out;
}

DecodeStatus decode_header(const std::uint8_t* data, std::size_t size,
                           std::size_t max_message_bytes, MessageHeader& out) {
  // Checked in wire order, so the reason names the first field that is wrong; the length is
  // trusted only after magic, version and type say these are our bytes.
  if (data == nullptr || size < kMessageHeaderBytes) return DecodeStatus::truncated;
  out.magic = load_u32(data + 0);
  if (out.magic != kMessageMagic) return DecodeStatus::bad_magic;
  out.version = load_u16(data + 4);
  if (out.version != kMessageVersion) return DecodeStatus::bad_version;
  const std::uint16_t type = load_u16(data + 6);
  if (!is_known_message_type(type)) return DecodeStatus::unknown_type;
  out.type = static_cast<MessageType>(type);
  out.payload_length = load_u32(data + 8);
  // Compared as 64-bit so a length near 4 GiB cannot wrap past the limit.
  if (static_cast<std::uint64_t>(out.payload_length) + kMessageHeaderBytes > max_message_bytes) {
    return DecodeStatus::too_long;
  }
  out.source = load_u32(data + 12);
  out.txn_id = load_u64(data + 16);
  return DecodeStatus::ok;
}

DecodeStatus decode(const std::uint8_t* data, std::size_t size, std::size_t max_message_bytes,
                    Message& out) {
  MessageHeader h;
  const DecodeStatus status = decode_header(data, size, max_message_bytes, h);
  if (status != DecodeStatus::ok) return status;
  const std::size_t total = kMessageHeaderBytes + h.payload_length;
  if (size < total) return DecodeStatus::truncated;
  if (size > total) return DecodeStatus::trailing_bytes;
  out.type = h.type;
  out.txn_id = h.txn_id;
  out.source = h.source;
  out.payload.assign(data + kMessageHeaderBytes, data + total);
  return DecodeStatus::ok;
}

}  // namespace islands
