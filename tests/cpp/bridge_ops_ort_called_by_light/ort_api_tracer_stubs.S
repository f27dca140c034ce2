// The OrtApi tracer's stubs (ort_api_tracer.cc): stub i adds one to
// onnx_light_trace_counts[i] and jumps to onnx_light_trace_real[i] with every argument
// register untouched, so it stands in for any slot's function whatever its signature.
// x86-64, System V.
        .altmacro
        .text

        .macro TRACE_STUB n
        .p2align 4
        .type onnx_light_trace_stub_\n, @function
onnx_light_trace_stub_\n:
        lock incq onnx_light_trace_counts+8*\n(%rip)
        jmp *onnx_light_trace_real+8*\n(%rip)
        .size onnx_light_trace_stub_\n, .-onnx_light_trace_stub_\n
        .endm

        .set i, 0
        .rept 512
        TRACE_STUB %i
        .set i, i + 1
        .endr

        .macro TRACE_STUB_ADDRESS n
        .quad onnx_light_trace_stub_\n
        .endm

        .section .data.rel.ro, "aw"
        .p2align 3
        .globl onnx_light_trace_stubs
        .hidden onnx_light_trace_stubs
        .type onnx_light_trace_stubs, @object
onnx_light_trace_stubs:
        .set i, 0
        .rept 512
        TRACE_STUB_ADDRESS %i
        .set i, i + 1
        .endr
        .size onnx_light_trace_stubs, .-onnx_light_trace_stubs

        .section .note.GNU-stack, "", @progbits
