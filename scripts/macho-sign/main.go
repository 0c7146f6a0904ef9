// macho-sign: ad-hoc code signature for a thin 64-bit little-endian Mach-O executable, on any OS
// (what `codesign --sign - FILE` does on a Mac). macOS refuses to run an unsigned arm64 binary, and
// injecting the SEA blob removes Node's own signature.
//
// The signature itself (CodeDirectory with a SHA-256 hash of every 4 KiB page, empty requirements,
// empty CMS wrapper) comes from the go-macho library, built from the Go module proxy by
// scripts/lib/tools.mjs. The file layout is done here: go-macho's writer assumes segments without
// gaps between them, which a SEA-injected binary has.
//
//	macho-sign -id kubectl-arch FILE
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"

	"github.com/blacktop/go-macho/pkg/codesign"
	cstypes "github.com/blacktop/go-macho/pkg/codesign/types"
)

const (
	mhMagic64        = 0xfeedfacf
	mhExecute        = 2
	lcSegment64      = 0x19
	lcCodeSignature  = 0x1d
	headerSize       = 32
	codeSignatureCmd = 16
)

func main() {
	id := flag.String("id", "", "code signing identifier (codesign uses the file name)")
	flag.Parse()
	if flag.NArg() != 1 || *id == "" {
		fmt.Fprintln(os.Stderr, "usage: macho-sign -id IDENTIFIER FILE")
		os.Exit(2)
	}
	if err := sign(flag.Arg(0), *id); err != nil {
		fmt.Fprintf(os.Stderr, "macho-sign: %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
}

func sign(path, id string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	if len(data) < headerSize || le.Uint32(data) != mhMagic64 {
		return fmt.Errorf("not a thin 64-bit little-endian Mach-O file")
	}
	if le.Uint32(data[12:]) != mhExecute {
		return fmt.Errorf("not an executable")
	}
	ncmds, sizeofcmds := le.Uint32(data[16:]), le.Uint32(data[20:])
	var linkedit, textOff, textSize, pageSize uint64
	linkeditCmd := -1
	firstSectionOffset := uint64(len(data))
	pageSize = 0x1000
	if cpu := le.Uint32(data[4:]); cpu == 0x0100000c { // arm64: 16 KiB pages
		pageSize = 0x4000
	}
	off := uint32(headerSize)
	for i := uint32(0); i < ncmds; i++ {
		cmd, size := le.Uint32(data[off:]), le.Uint32(data[off+4:])
		switch cmd {
		case lcCodeSignature:
			// a leftover signature would lend its team ID and entitlements to ours
			return fmt.Errorf("already signed; remove the signature first")
		case lcSegment64:
			name := string(bytes.TrimRight(data[off+8:off+24], "\x00"))
			fileoff, filesize := le.Uint64(data[off+40:]), le.Uint64(data[off+48:])
			if name == "__LINKEDIT" {
				linkeditCmd, linkedit = int(off), fileoff
			}
			if name == "__TEXT" {
				textOff, textSize = fileoff, filesize
			}
			nsects := le.Uint32(data[off+64:])
			for s := uint32(0); s < nsects; s++ {
				sect := off + 72 + s*80
				if o := uint64(le.Uint32(data[sect+48:])); o != 0 && o < firstSectionOffset {
					firstSectionOffset = o
				}
			}
		}
		off += size
	}
	if linkeditCmd < 0 || linkedit+le.Uint64(data[linkeditCmd+48:]) != uint64(len(data)) {
		return fmt.Errorf("__LINKEDIT is not the last data in the file")
	}
	if uint64(headerSize+sizeofcmds+codeSignatureCmd) > firstSectionOffset {
		return fmt.Errorf("no room for LC_CODE_SIGNATURE after the load commands")
	}

	// the signature starts 16-byte aligned after __LINKEDIT's data; everything before it is hashed
	codeLimit := (uint64(len(data)) + 15) &^ 15
	config := &codesign.Config{ID: id, Flags: cstypes.ADHOC, IsMain: true, CodeSize: codeLimit, TextOffset: textOff, TextSize: textSize}
	config.InitSlotHashes()
	config.NSpecialSlots = 2
	sigSize := codesign.EstimateCodeSignatureSize(config)
	linkeditSize := codeLimit + sigSize - linkedit
	linkeditSize = (linkeditSize + pageSize - 1) &^ (pageSize - 1)

	out := make([]byte, codeLimit, linkedit+linkeditSize)
	copy(out, data)
	// LC_CODE_SIGNATURE at the end of the load commands, then __LINKEDIT grown to hold the signature
	lc := headerSize + sizeofcmds
	le.PutUint32(out[lc:], lcCodeSignature)
	le.PutUint32(out[lc+4:], codeSignatureCmd)
	le.PutUint32(out[lc+8:], uint32(codeLimit))
	le.PutUint32(out[lc+12:], uint32(linkedit+linkeditSize-codeLimit))
	le.PutUint32(out[16:], ncmds+1)
	le.PutUint32(out[20:], sizeofcmds+codeSignatureCmd)
	le.PutUint64(out[linkeditCmd+32:], linkeditSize) // vmsize
	le.PutUint64(out[linkeditCmd+48:], linkeditSize) // filesize

	sig, err := codesign.Sign(bytes.NewReader(out), config)
	if err != nil {
		return err
	}
	if uint64(len(sig)) > linkedit+linkeditSize-codeLimit {
		return fmt.Errorf("signature larger than estimated")
	}
	out = append(out, sig...)
	out = append(out, make([]byte, int(linkedit+linkeditSize)-len(out))...)

	tmp := path + ".signing"
	if err := os.WriteFile(tmp, out, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
