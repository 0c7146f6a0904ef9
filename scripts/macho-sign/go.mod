module kubectl-arch/scripts/macho-sign

go 1.22

require github.com/blacktop/go-macho v1.1.296

require github.com/blacktop/go-dwarf v1.1.0 // indirect
