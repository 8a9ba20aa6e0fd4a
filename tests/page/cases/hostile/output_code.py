# AOT ID: ['0_inference']
cpp_fused_x = async_compile.cpp_pybinding(['float*'], '''
extern "C" void kernel(float* p) { /* </script><script>window.pwned=5</script> U+2028:[ ] */ }
''')

def call(args):
    arg0_1, = args
    # [Provenance debug handles] </script><img src=x onerror=window.pwned=6>:1
    cpp_fused_x(arg0_1)  # <img src=x onerror=window.pwned=7>
    return (arg0_1, )
