#include "/tmp/torchinductor_user/pi/cpicxudqmdsjh5cm4klbtbrvy2cx.h"
extern "C"  void cpp_fused_gelu_0(float* in_out_ptr0)
{
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(128L); x0+=static_cast<int64_t>(16L))
        {
            auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
            auto tmp1 = static_cast<float>(0.5);
            auto tmp2 = tmp0 * at::vec::Vectorized<float>(tmp1);
            auto tmp3 = static_cast<float>(0.7071067811865476);
            auto tmp4 = (tmp0 * at::vec::Vectorized<float>(tmp3)).erf();
            auto tmp5 = tmp2 * tmp4;
            tmp5.store(in_out_ptr0 + static_cast<int64_t>(x0));
        }
    }
}
