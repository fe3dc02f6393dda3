// Package units parses and formats the quantities plimsoll's users type: byte sizes ("64KiB",
// "1GB") and data rates ("300MB/s", "2.5Gbit/s", "125000KB/s", "16Mbit/s").
//
// Decimal prefixes are powers of ten (MB = 10^6 bytes), binary prefixes powers of two
// (MiB = 2^20 bytes), as in IEC 80000-13. A "bit" rate is divided by eight to give bytes. Every
// value is returned in bytes or bytes per second as a float64, the unit the model works in.
package units
