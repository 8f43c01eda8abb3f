package savepoint

import (
	"encoding/binary"
	"fmt"
)

// This file is the field-numbered layer: the protobuf wire format (tags,
// base-128 varints, length-delimited fields), written with encoding/binary's
// varint functions so that core stays standard-library only. The codecs see
// it only through fieldSink and eachField; wire_test.go proves every message
// they produce byte-compatible with google.golang.org/protobuf/encoding/protowire.

// wireType is a protobuf wire type.
type wireType uint8

const (
	wireVarint  wireType = 0
	wireFixed64 wireType = 1
	wireBytes   wireType = 2
	wireFixed32 wireType = 5
)

// maxFieldNumber is protobuf's largest field number.
const maxFieldNumber = 1<<29 - 1

// fieldSink is what an encoder writes fields into.
type fieldSink interface {
	Varint(num int, v uint64)
	Bytes(num int, b []byte)
	Message(num int, encode func(fieldSink))
}

// wireBuf is the fieldSink that appends protobuf wire bytes to b.
type wireBuf struct{ b []byte }

func (w *wireBuf) tag(num int, t wireType) {
	w.b = binary.AppendUvarint(w.b, uint64(num)<<3|uint64(t))
}

func (w *wireBuf) Varint(num int, v uint64) {
	w.tag(num, wireVarint)
	w.b = binary.AppendUvarint(w.b, v)
}

func (w *wireBuf) Bytes(num int, p []byte) {
	w.tag(num, wireBytes)
	w.b = binary.AppendUvarint(w.b, uint64(len(p)))
	w.b = append(w.b, p...)
}

func (w *wireBuf) Message(num int, encode func(fieldSink)) {
	var inner wireBuf
	encode(&inner)
	w.Bytes(num, inner.b)
}

// field is one decoded field. For varint and fixed fields u holds the value;
// for length-delimited fields b aliases the input.
type field struct {
	num int
	typ wireType
	u   uint64
	b   []byte
	off int // offset of the field's tag in the message
}

// eachField calls fn for every field of msg in order. Fields fn does not
// know it simply ignores, which is how unknown fields are skipped. Groups
// (wire types 3 and 4) are rejected: nothing here writes them.
func eachField(msg []byte, fn func(field) error) error {
	for off := 0; off < len(msg); {
		f, n, err := nextField(msg[off:])
		if err != nil {
			return fmt.Errorf("%w: at byte %d: %v", ErrCorrupt, off, err)
		}
		f.off = off
		if err := fn(f); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// nextField decodes the field at the start of b and returns its length.
func nextField(b []byte) (field, int, error) {
	key, n := binary.Uvarint(b)
	if n <= 0 {
		return field{}, 0, fmt.Errorf("bad tag")
	}
	num, typ := key>>3, wireType(key&7)
	if num == 0 || num > maxFieldNumber {
		return field{}, 0, fmt.Errorf("field number %d out of range", num)
	}
	f := field{num: int(num), typ: typ}
	m, err := f.consumeValue(b[n:])
	return f, n + m, err
}

// consumeValue reads f's value from b and returns how many bytes it took.
func (f *field) consumeValue(b []byte) (int, error) {
	switch f.typ {
	case wireVarint:
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, fmt.Errorf("field %d: bad varint", f.num)
		}
		f.u = v
		return n, nil
	case wireFixed64:
		if len(b) < 8 {
			return 0, fmt.Errorf("field %d: truncated fixed64", f.num)
		}
		f.u = binary.LittleEndian.Uint64(b)
		return 8, nil
	case wireFixed32:
		if len(b) < 4 {
			return 0, fmt.Errorf("field %d: truncated fixed32", f.num)
		}
		f.u = uint64(binary.LittleEndian.Uint32(b))
		return 4, nil
	case wireBytes:
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return 0, fmt.Errorf("field %d: bad length", f.num)
		}
		f.b = b[n : n+int(l)]
		return n + int(l), nil
	}
	return 0, fmt.Errorf("field %d: unsupported wire type %d", f.num, f.typ)
}

// The typed accessors below check the wire type against the schema.

func (f field) wantType(t wireType) error {
	if f.typ != t {
		return fmt.Errorf("%w: field %d has wire type %d, want %d", ErrCorrupt, f.num, f.typ, t)
	}
	return nil
}

func (f field) int64(dst *int64) error {
	*dst = int64(f.u)
	return f.wantType(wireVarint)
}

func (f field) int32(dst *int32) error {
	v := int64(f.u)
	if v != int64(int32(v)) {
		return fmt.Errorf("%w: field %d: %d overflows int32", ErrCorrupt, f.num, v)
	}
	*dst = int32(v)
	return f.wantType(wireVarint)
}

func (f field) bytes() ([]byte, error) {
	return append([]byte{}, f.b...), f.wantType(wireBytes)
}

func (f field) string(dst *string) error {
	*dst = string(f.b)
	return f.wantType(wireBytes)
}

// putInt64 and putInt32 encode signed values as protobuf int64/int32 do
// (two's complement, so negatives take ten bytes).
func putInt64(w fieldSink, num int, v int64) { w.Varint(num, uint64(v)) }
func putInt32(w fieldSink, num int, v int32) { w.Varint(num, uint64(int64(v))) }
func putString(w fieldSink, num int, s string) {
	w.Bytes(num, []byte(s))
}
