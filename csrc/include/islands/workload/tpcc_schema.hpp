#pragma once
#include <cstdint>
#include <cstring>

#include "islands/storage/row.hpp"

//! TPC-C's nine tables as named, typed columns over a Row's payload, and the keys that find
//! them. Every accessor is an inline function over a constant offset, so a named access
//! compiles to the same load or store as `row->columns()[k]`. Money (cents) that can outgrow 32
//! bits is an int64 spread over two adjacent columns; rates (tax, discount) are basis points;
//! dates are seconds since the Unix epoch (0: null). Two layouts (TpccConfig::layout):
//! "narrow" keeps only the numeric columns the transactions' arithmetic needs (kColumns);
//! "spec" (the default) adds every other column of clause 1.3 at its width as a Text tail
//! after them (kSpecColumns), with fixed-width strings (zero-padded char arrays, so a
//! varchar's length is its strnlen). A table's ids (W_ID, D_ID, C_ID, O_ID, OL_NUMBER, I_ID,
//! S_W_ID ...) are its primary key, Row::key, and are not stored again.
namespace islands::tpcc {

//! Payload columns (int32 units) a tail struct T takes after `at` numeric columns, `at` rounded
//! up to an even number so the tail is 8-byte aligned (Row's payload starts 8-byte aligned).
template <class T>
constexpr std::uint32_t with_tail(std::uint32_t at) {
  return (at + 1) / 2 * 2 + static_cast<std::uint32_t>((sizeof(T) + 3) / 4);
}
//! The tail after `at` numeric columns (see with_tail).
template <class T>
inline T& tail(Row* r, std::uint32_t at) { return *reinterpret_cast<T*>(r->columns() + (at + 1) / 2 * 2); }
template <class T>
inline const T& tail(const Row* r, std::uint32_t at) {
  return *reinterpret_cast<const T*>(r->columns() + (at + 1) / 2 * 2);
}

//! The address columns of Warehouse and District (clause 1.3).
struct Address {
  char street_1[20];  //!< varchar(20)
  char street_2[20];  //!< varchar(20)
  char city[20];      //!< varchar(20)
  char state[2];      //!< char(2)
  char zip[9];        //!< char(9)
};

//! Index bytes per key the memory estimates count: 16-byte hash slots at a load factor of 1/2
//! to 1/4, and as much again in arrays a partition outgrew (kept for optimistic readers).
constexpr std::uint64_t kIndexBytesPerKey = 128;

//! Districts per warehouse.
constexpr std::uint32_t kDistricts = 10;
//! Distinct customer last names (clause 4.3.2.3: 000-999).
constexpr std::uint32_t kLastNames = 1000;

//! Table tags: the top byte of a primary-index key (History's rows, which no index holds,
//! carry a key of their own tag too, so that a log's after-image names its table).
enum Tag : std::uint64_t {
  kWarehouseTag = 1, kDistrictTag = 2, kCustomerTag = 3, kOrderTag = 4, kNewOrderTag = 5, kOrderLineTag = 6,
  kItemTag = 7, kStockTag = 8, kHistoryTag = 9
};

//! A primary-index key: tag (8 bits), warehouse (16), district (8), the table's own id (32).
constexpr std::uint64_t primary_key(std::uint64_t tag, std::uint64_t w, std::uint64_t d, std::uint64_t x) {
  return (tag << 56) | (w << 40) | (d << 32) | x;
}
//! The warehouse of a primary key.
constexpr std::uint64_t key_warehouse(std::uint64_t k) { return (k >> 40) & 0xffffULL; }
//! Warehouse and district of a primary key, as one number (warehouse << 8 | district).
constexpr std::uint64_t key_warehouse_district(std::uint64_t k) { return (k >> 32) & 0xffffffULL; }
//! The warehouse of a key_warehouse_district() number.
constexpr std::uint64_t warehouse_of_district(std::uint64_t wd) { return wd >> 8; }
//! The table's own id of a primary key (an order's number for Order and NewOrder).
constexpr std::uint64_t key_id(std::uint64_t k) { return k & 0xffffffffULL; }

//! One int32 column at a constant offset.
template <std::uint32_t C>
inline std::int32_t get32(const Row* row) { return row->columns()[C]; }
template <std::uint32_t C>
inline void set32(Row* row, std::int32_t v) { row->columns()[C] = v; }
//! One int64 over columns C and C + 1.
template <std::uint32_t C>
inline std::int64_t get64(const Row* row) {
  std::int64_t v;
  std::memcpy(&v, row->columns() + C, sizeof v);
  return v;
}
template <std::uint32_t C>
inline void set64(Row* row, std::int64_t v) { std::memcpy(row->columns() + C, &v, sizeof v); }

//! Warehouse: ytd (int64), tax (basis points).
struct Warehouse {
  static constexpr std::uint32_t kColumns = 3;  //!< payload columns
  //! Its key.
  static constexpr std::uint64_t key(std::uint64_t w) { return primary_key(kWarehouseTag, w, 0, 0); }
  static std::int64_t ytd(const Row* r) { return get64<0>(r); }    //!< year-to-date payments
  static void set_ytd(Row* r, std::int64_t v) { set64<0>(r, v); }  //!< sets ytd
  static std::int32_t tax(const Row* r) { return get32<2>(r); }    //!< tax, basis points
  static void set_tax(Row* r, std::int32_t v) { set32<2>(r, v); }  //!< sets tax
  //! The spec layout's other columns: W_NAME varchar(10) and the address.
  struct Text {
    char name[10];    //!< W_NAME
    Address address;  //!< W_STREET_1 ... W_ZIP
  };
  static constexpr std::uint32_t kSpecColumns = with_tail<Text>(kColumns);  //!< spec layout's payload columns
  static Text& text(Row* r) { return tail<Text>(r, kColumns); }              //!< spec layout only
  static const Text& text(const Row* r) { return tail<Text>(r, kColumns); }  //!< spec layout only
};

//! District: ytd (int64), tax, next_o_id, and the oldest undelivered order (Delivery's cursor).
struct District {
  static constexpr std::uint32_t kColumns = 5;  //!< payload columns
  //! Its key.
  static constexpr std::uint64_t key(std::uint64_t w, std::uint64_t d) { return primary_key(kDistrictTag, w, d, 0); }
  static std::int64_t ytd(const Row* r) { return get64<0>(r); }              //!< year-to-date payments
  static void set_ytd(Row* r, std::int64_t v) { set64<0>(r, v); }            //!< sets ytd
  static std::int32_t tax(const Row* r) { return get32<2>(r); }              //!< tax, basis points
  static void set_tax(Row* r, std::int32_t v) { set32<2>(r, v); }            //!< sets tax
  static std::int32_t next_o_id(const Row* r) { return get32<3>(r); }        //!< the next order's number
  static void set_next_o_id(Row* r, std::int32_t v) { set32<3>(r, v); }      //!< sets next_o_id
  static std::int32_t next_delivery(const Row* r) { return get32<4>(r); }    //!< oldest undelivered order
  static void set_next_delivery(Row* r, std::int32_t v) { set32<4>(r, v); }  //!< sets next_delivery
  //! The spec layout's other columns: D_NAME varchar(10) and the address.
  struct Text {
    char name[10];    //!< D_NAME
    Address address;  //!< D_STREET_1 ... D_ZIP
  };
  static constexpr std::uint32_t kSpecColumns = with_tail<Text>(kColumns);  //!< spec layout's payload columns
  static Text& text(Row* r) { return tail<Text>(r, kColumns); }              //!< spec layout only
  static const Text& text(const Row* r) { return tail<Text>(r, kColumns); }  //!< spec layout only
};

//! Customer: balance and ytd_payment (int64 each), payment_cnt, delivery_cnt, discount (basis
//! points), bad credit (0 or 1), last name (0-999), first name (a number) and its id.
struct Customer {
  static constexpr std::uint32_t kColumns = 11;  //!< payload columns
  //! Its key.
  static constexpr std::uint64_t key(std::uint64_t w, std::uint64_t d, std::uint64_t c) {
    return primary_key(kCustomerTag, w, d, c);
  }
  static std::int64_t balance(const Row* r) { return get64<0>(r); }         //!< balance, cents
  static void set_balance(Row* r, std::int64_t v) { set64<0>(r, v); }       //!< sets balance
  static std::int64_t ytd_payment(const Row* r) { return get64<2>(r); }     //!< payments, cents
  static void set_ytd_payment(Row* r, std::int64_t v) { set64<2>(r, v); }   //!< sets ytd_payment
  static std::int32_t payment_cnt(const Row* r) { return get32<4>(r); }     //!< payments made
  static void set_payment_cnt(Row* r, std::int32_t v) { set32<4>(r, v); }   //!< sets payment_cnt
  static std::int32_t delivery_cnt(const Row* r) { return get32<5>(r); }    //!< orders delivered
  static void set_delivery_cnt(Row* r, std::int32_t v) { set32<5>(r, v); }  //!< sets delivery_cnt
  static std::int32_t discount(const Row* r) { return get32<6>(r); }        //!< discount, basis points
  static void set_discount(Row* r, std::int32_t v) { set32<6>(r, v); }      //!< sets discount
  static std::int32_t bad_credit(const Row* r) { return get32<7>(r); }      //!< 1 for "BC"
  static void set_bad_credit(Row* r, std::int32_t v) { set32<7>(r, v); }    //!< sets bad_credit
  static std::int32_t last(const Row* r) { return get32<8>(r); }            //!< last name, 0-999
  static void set_last(Row* r, std::int32_t v) { set32<8>(r, v); }          //!< sets last
  static std::int32_t first(const Row* r) { return get32<9>(r); }           //!< first name, a number
  static void set_first(Row* r, std::int32_t v) { set32<9>(r, v); }         //!< sets first
  static std::int32_t id(const Row* r) { return get32<10>(r); }             //!< c_id
  static void set_id(Row* r, std::int32_t v) { set32<10>(r, v); }           //!< sets id
  //! The spec layout's other columns (C_LAST as its syllables; `last` above is its number).
  struct Text {
    std::int64_t since;       //!< C_SINCE
    std::int64_t credit_lim;  //!< C_CREDIT_LIM, cents
    char first[16];           //!< C_FIRST varchar(16)
    char middle[2];           //!< C_MIDDLE char(2)
    char last[16];            //!< C_LAST varchar(16)
    Address address;          //!< C_STREET_1 ... C_ZIP
    char phone[16];           //!< C_PHONE char(16)
    char credit[2];           //!< C_CREDIT char(2): "GC" or "BC" (bad_credit above says which)
    char data[500];           //!< C_DATA varchar(500)
  };
  static constexpr std::uint32_t kSpecColumns = with_tail<Text>(kColumns);  //!< spec layout's payload columns
  static Text& text(Row* r) { return tail<Text>(r, kColumns); }              //!< spec layout only
  static const Text& text(const Row* r) { return tail<Text>(r, kColumns); }  //!< spec layout only
};

//! History (no primary key; the row's key names its customer, not unique, and no index holds
//! it): c_id, c_d, c_w, d, w, amount (int64). Stored at the customer's site.
struct History {
  static constexpr std::uint32_t kColumns = 7;                        //!< payload columns
  //! The key its rows carry: the customer (c_w, c_d, c_id) it was paid for.
  static constexpr std::uint64_t key(std::uint64_t c_w, std::uint64_t c_d, std::uint64_t c_id) {
    return primary_key(kHistoryTag, c_w, c_d, c_id);
  }
  static std::int32_t c_id(const Row* r) { return get32<0>(r); }      //!< the customer
  static void set_c_id(Row* r, std::int32_t v) { set32<0>(r, v); }    //!< sets c_id
  static std::int32_t c_d(const Row* r) { return get32<1>(r); }       //!< the customer's district
  static void set_c_d(Row* r, std::int32_t v) { set32<1>(r, v); }     //!< sets c_d
  static std::int32_t c_w(const Row* r) { return get32<2>(r); }       //!< the customer's warehouse
  static void set_c_w(Row* r, std::int32_t v) { set32<2>(r, v); }     //!< sets c_w
  static std::int32_t d(const Row* r) { return get32<3>(r); }         //!< the paid district
  static void set_d(Row* r, std::int32_t v) { set32<3>(r, v); }       //!< sets d
  static std::int32_t w(const Row* r) { return get32<4>(r); }         //!< the paid warehouse
  static void set_w(Row* r, std::int32_t v) { set32<4>(r, v); }       //!< sets w
  static std::int64_t amount(const Row* r) { return get64<5>(r); }    //!< amount, cents
  static void set_amount(Row* r, std::int64_t v) { set64<5>(r, v); }  //!< sets amount
  //! The spec layout's other columns.
  struct Text {
    std::int64_t date;  //!< H_DATE
    char data[24];      //!< H_DATA varchar(24): W_NAME, 4 spaces, D_NAME
  };
  static constexpr std::uint32_t kSpecColumns = with_tail<Text>(kColumns);  //!< spec layout's payload columns
  static Text& text(Row* r) { return tail<Text>(r, kColumns); }              //!< spec layout only
  static const Text& text(const Row* r) { return tail<Text>(r, kColumns); }  //!< spec layout only
};

//! Order: c_id, entry_d, carrier_id (0 until delivered), ol_cnt, all_local: every column in
//! both layouts.
struct Order {
  static constexpr std::uint32_t kColumns = 5;  //!< payload columns
  static constexpr std::uint32_t kSpecColumns = kColumns;  //!< the same in the spec layout
  //! Its key.
  static constexpr std::uint64_t key(std::uint64_t w, std::uint64_t d, std::uint64_t o) {
    return primary_key(kOrderTag, w, d, o);
  }
  static std::int32_t c_id(const Row* r) { return get32<0>(r); }          //!< the customer
  static void set_c_id(Row* r, std::int32_t v) { set32<0>(r, v); }        //!< sets c_id
  static std::int32_t entry_d(const Row* r) { return get32<1>(r); }       //!< O_ENTRY_D
  static void set_entry_d(Row* r, std::int32_t v) { set32<1>(r, v); }     //!< sets entry_d
  static std::int32_t carrier_id(const Row* r) { return get32<2>(r); }    //!< 0 until delivered
  static void set_carrier_id(Row* r, std::int32_t v) { set32<2>(r, v); }  //!< sets carrier_id
  static std::int32_t ol_cnt(const Row* r) { return get32<3>(r); }        //!< its lines
  static void set_ol_cnt(Row* r, std::int32_t v) { set32<3>(r, v); }      //!< sets ol_cnt
  static std::int32_t all_local(const Row* r) { return get32<4>(r); }     //!< 1 when no remote item
  static void set_all_local(Row* r, std::int32_t v) { set32<4>(r, v); }   //!< sets all_local
};

//! NewOrder: o_id, present (1; Delivery deletes the row). Every column in both layouts.
struct NewOrder {
  static constexpr std::uint32_t kColumns = 2;  //!< payload columns
  static constexpr std::uint32_t kSpecColumns = kColumns;  //!< the same in the spec layout
  //! Its key.
  static constexpr std::uint64_t key(std::uint64_t w, std::uint64_t d, std::uint64_t o) {
    return primary_key(kNewOrderTag, w, d, o);
  }
  static std::int32_t o_id(const Row* r) { return get32<0>(r); }       //!< the order
  static void set_o_id(Row* r, std::int32_t v) { set32<0>(r, v); }     //!< sets o_id
  static std::int32_t present(const Row* r) { return get32<1>(r); }    //!< 1 until delivered
  static void set_present(Row* r, std::int32_t v) { set32<1>(r, v); }  //!< sets present
};

//! OrderLine: i_id, supply_w, quantity, amount (cents), delivery_d (0 until delivered).
struct OrderLine {
  static constexpr std::uint32_t kColumns = 5;  //!< payload columns
  //! Its key: line ol (1-15) of order o.
  static constexpr std::uint64_t key(std::uint64_t w, std::uint64_t d, std::uint64_t o, std::uint64_t ol) {
    return primary_key(kOrderLineTag, w, d, (o << 4) | ol);
  }
  static std::int32_t i_id(const Row* r) { return get32<0>(r); }         //!< the item
  static void set_i_id(Row* r, std::int32_t v) { set32<0>(r, v); }       //!< sets i_id
  static std::int32_t supply_w(const Row* r) { return get32<1>(r); }     //!< supplying warehouse
  static void set_supply_w(Row* r, std::int32_t v) { set32<1>(r, v); }   //!< sets supply_w
  static std::int32_t quantity(const Row* r) { return get32<2>(r); }     //!< quantity
  static void set_quantity(Row* r, std::int32_t v) { set32<2>(r, v); }   //!< sets quantity
  static std::int32_t amount(const Row* r) { return get32<3>(r); }       //!< amount, cents
  static void set_amount(Row* r, std::int32_t v) { set32<3>(r, v); }     //!< sets amount
  static std::int32_t delivered(const Row* r) { return get32<4>(r); }    //!< OL_DELIVERY_D; 0: null
  static void set_delivered(Row* r, std::int32_t v) { set32<4>(r, v); }  //!< sets delivered
  //! The spec layout's other column.
  struct Text {
    char dist_info[24];  //!< OL_DIST_INFO char(24)
  };
  static constexpr std::uint32_t kSpecColumns = with_tail<Text>(kColumns);  //!< spec layout's payload columns
  static Text& text(Row* r) { return tail<Text>(r, kColumns); }              //!< spec layout only
  static const Text& text(const Row* r) { return tail<Text>(r, kColumns); }  //!< spec layout only
};

//! Item (read only, one copy per instance): price (cents), im_id.
struct Item {
  static constexpr std::uint32_t kColumns = 2;  //!< payload columns
  //! Its key.
  static constexpr std::uint64_t key(std::uint64_t i) { return primary_key(kItemTag, 0, 0, i); }
  static std::int32_t price(const Row* r) { return get32<0>(r); }    //!< price, cents
  static void set_price(Row* r, std::int32_t v) { set32<0>(r, v); }  //!< sets price
  static std::int32_t im_id(const Row* r) { return get32<1>(r); }    //!< image id
  static void set_im_id(Row* r, std::int32_t v) { set32<1>(r, v); }  //!< sets im_id
  //! The spec layout's other columns.
  struct Text {
    char name[24];  //!< I_NAME varchar(24)
    char data[50];  //!< I_DATA varchar(50); "ORIGINAL" in 10% of items
  };
  static constexpr std::uint32_t kSpecColumns = with_tail<Text>(kColumns);  //!< spec layout's payload columns
  static Text& text(Row* r) { return tail<Text>(r, kColumns); }              //!< spec layout only
  static const Text& text(const Row* r) { return tail<Text>(r, kColumns); }  //!< spec layout only
};

//! Stock: quantity, ytd, order_cnt, remote_cnt.
struct Stock {
  static constexpr std::uint32_t kColumns = 4;  //!< payload columns
  //! Its key: item i of warehouse w.
  static constexpr std::uint64_t key(std::uint64_t w, std::uint64_t i) { return primary_key(kStockTag, w, 0, i); }
  static std::int32_t quantity(const Row* r) { return get32<0>(r); }      //!< quantity on hand
  static void set_quantity(Row* r, std::int32_t v) { set32<0>(r, v); }    //!< sets quantity
  static std::int32_t ytd(const Row* r) { return get32<1>(r); }           //!< quantity ordered
  static void set_ytd(Row* r, std::int32_t v) { set32<1>(r, v); }         //!< sets ytd
  static std::int32_t order_cnt(const Row* r) { return get32<2>(r); }     //!< orders of it
  static void set_order_cnt(Row* r, std::int32_t v) { set32<2>(r, v); }   //!< sets order_cnt
  static std::int32_t remote_cnt(const Row* r) { return get32<3>(r); }    //!< remote orders of it
  static void set_remote_cnt(Row* r, std::int32_t v) { set32<3>(r, v); }  //!< sets remote_cnt
  //! The spec layout's other columns; they never change after the load, so they are a function
  //! of (warehouse, item) (stock_text in tpcc_text.hpp) that another instance can recompute.
  struct Text {
    char dist[10][24];  //!< S_DIST_01 ... S_DIST_10 char(24)
    char data[50];      //!< S_DATA varchar(50); "ORIGINAL" in 10% of rows
  };
  static constexpr std::uint32_t kSpecColumns = with_tail<Text>(kColumns);  //!< spec layout's payload columns
  static Text& text(Row* r) { return tail<Text>(r, kColumns); }              //!< spec layout only
  static const Text& text(const Row* r) { return tail<Text>(r, kColumns); }  //!< spec layout only
};

//! The ordered secondary index of Order: (warehouse, district, customer, order) -> order row.
struct OrderByCustomer {
  static constexpr std::uint64_t kMaxOrder = (1ULL << 27) - 1;  //!< orders per district the key holds
  //! Its key.
  static constexpr std::uint64_t key(std::uint64_t w, std::uint64_t d, std::uint64_t c, std::uint64_t o) {
    return (w << 48) | (d << 44) | (c << 27) | o;
  }
};

}  // namespace islands::tpcc
