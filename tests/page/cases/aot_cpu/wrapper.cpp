
#include <torch/csrc/inductor/aoti_include/cpu.h>

extern "C"  void cpp_fused_gelu_0(float* in_out_ptr0);

namespace torch::aot_inductor {

void AOTInductorModel::run_impl(
    AtenTensorHandle*
        input_handles, // array of input AtenTensorHandle; handles
                        // are stolen; the array itself is borrowed
    AtenTensorHandle*
        output_handles, // array for writing output AtenTensorHandle; handles
                        // will be stolen by the caller; the array itself is
                        // borrowed
    DeviceStreamType stream,
    AOTIProxyExecutorHandle proxy_executor
) {
    auto inputs = steal_from_raw_handles_to_raii_handles(input_handles, 2);
    auto arg0_1 = std::move(inputs[0]);
    auto arg1_1 = std::move(inputs[1]);
    static constexpr int64_t int_array_0[] = {8L, 16L};
    static constexpr int64_t int_array_1[] = {16L, 1L};
    AtenTensorHandle buf0_handle;
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_empty_strided(2, int_array_0, int_array_1, cached_torch_dtype_float32, cached_torch_device_type_cpu,  this->device_idx_, &buf0_handle));
    RAIIAtenTensorHandle buf0(buf0_handle);
    // Topologically Sorted Source Nodes: [y], Original ATen: [aten.mm]
    // [Provenance debug handles] aoti_torch_cpu_mm_out:1
    AOTI_TORCH_ERROR_CODE_CHECK(aoti_torch_cpu_mm_out(buf0, arg1_1, wrap_with_raii_handle_if_needed(reinterpret_tensor_wrapper(arg0_1, 2, int_array_2, int_array_3, 0L))));
    arg0_1.reset();
    arg1_1.reset();
    auto buf1 = std::move(buf0);  // reuse
    // Topologically Sorted Source Nodes: [z], Original ATen: [aten.gelu]
    // [Provenance debug handles] cpp_fused_gelu_0:2
    cpp_fused_gelu_0((float*)(buf1.data_ptr()));
    output_handles[0] = buf1.release();
} // AOTInductorModel::run_impl
} // namespace torch::aot_inductor
