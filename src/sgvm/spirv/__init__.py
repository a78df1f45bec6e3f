"""SPIR-V: grammar tables, binary reader/writer, Module model, disassembler."""
