"""While loops around communication on 8 partitions, for the tracer's
summary of identical iterations (tests/test_spmd.py): `cases(n)` gives each
pattern with an n-trip loop (uniform collectives, collectives some processes
run once more before the loop, a send/recv ring each way, other steps and
comparisons, a trip count that depends on the partition)."""
from __future__ import annotations

AR = '''%{out} = "stablehlo.all_reduce"(%{x}) <{{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{groups}> : tensor<{gshape}xi64>, use_global_device_ids}}> ({{
      ^bb0(%a{out}: tensor<f32>, %b{out}: tensor<f32>):
        %t{out} = stablehlo.add %a{out}, %b{out} : tensor<f32>
        stablehlo.return %t{out} : tensor<f32>
      }}) : (tensor<4xf32>) -> tensor<4xf32>'''
ALL = ("[[0, 1, 2, 3, 4, 5, 6, 7]]", "1x8")
HALF = ("[[0, 1, 2, 3], [4, 5, 6, 7]]", "2x4")
RING = "[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]"

def ar(out, x, g=ALL):
    return AR.format(out=out, x=x, groups=g[0], gshape=g[1])

def send(out, x, tok):
    return f'%{out} = "stablehlo.send"(%{x}, %{tok}) <{{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<{RING}> : tensor<8x2xi64>}}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token'

def recv(out, tok):
    return f'%{out}:2 = "stablehlo.recv"(%{tok}) <{{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, source_target_pairs = dense<{RING}> : tensor<8x2xi64>}}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)'

def branch_on_partition(lt, then_ops, then_val, x):
    return f'''%pid = stablehlo.partition_id : tensor<ui32>
    %pidi = stablehlo.convert %pid : (tensor<ui32>) -> tensor<i32>
    %lim = stablehlo.constant dense<{lt}> : tensor<i32>
    %inlow = stablehlo.compare LT, %pidi, %lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %bx = "stablehlo.if"(%inlow) ({{
      {then_ops}
      stablehlo.return %{then_val} : tensor<4xf32>
    }}, {{
      stablehlo.return %{x} : tensor<4xf32>
    }}) : (tensor<i1>) -> tensor<4xf32>'''

def branch_on_partition_ge(lt, then_ops, then_val, x, name):
    return f'''%pid{name} = stablehlo.partition_id : tensor<ui32>
    %pidi{name} = stablehlo.convert %pid{name} : (tensor<ui32>) -> tensor<i32>
    %lim{name} = stablehlo.constant dense<{lt}> : tensor<i32>
    %hi{name} = stablehlo.compare GE, %pidi{name}, %lim{name}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %{name} = "stablehlo.if"(%hi{name}) ({{
      {then_ops}
      stablehlo.return %{then_val} : tensor<4xf32>
    }}, {{
      stablehlo.return %{x} : tensor<4xf32>
    }}) : (tensor<i1>) -> tensor<4xf32>'''

def program(n, body, pre="", post="", start=0, step=1, direction="LT", bound=None, h="x", ret="r#1"):
    bound = n if bound is None else bound
    return f'''module @m attributes {{mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{
    {pre}
    %zero = stablehlo.constant dense<{start}> : tensor<i32>
    %r:2 = stablehlo.while(%i = %zero, %h = %{h}) : tensor<i32>, tensor<4xf32>
    cond {{
      %n = stablehlo.constant dense<{bound}> : tensor<i32>
      %lt = stablehlo.compare {direction}, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      {body}
      %one = stablehlo.constant dense<{step}> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %s : tensor<i32>, tensor<4xf32>
    }}
    {post}
    return %{ret} : tensor<4xf32>
  }}
}}
'''

def cases(n):
    out = {}
    out["uniform_all_reduce"] = program(n, ar("s", "h"))
    out["two_collectives"] = program(n, ar("u", "h") + "\n      " + ar("s", "u", HALF))
    out["extra_before_on_half"] = program(n, ar("s", "h"), pre=branch_on_partition(4, ar("e", "x"), "e", "x"), h="bx")
    out["extra_before_one_group"] = program(n, ar("s", "h", HALF), pre=branch_on_partition(4, ar("e", "x", HALF), "e", "x"), h="bx")
    out["extra_before_part_of_group"] = program(n, ar("s", "h", HALF), pre=branch_on_partition(2, ar("e", "x", HALF), "e", "x"), h="bx")
    pp = ("%pp = stablehlo.partition_id : tensor<ui32>\n      %pq = stablehlo.convert %pp : (tensor<ui32>) -> tensor<i32>\n"
          f"      %c5 = stablehlo.constant dense<{n}> : tensor<i32>\n      %n = stablehlo.add %pq, %c5 : tensor<i32>")
    out["per_process_trips"] = program(n, ar("s", "h")).replace(f"%n = stablehlo.constant dense<{n}> : tensor<i32>", pp)
    out["compensated_after"] = program(n, ar("s", "h"), pre=branch_on_partition(4, ar("e", "x"), "e", "x"), h="bx",
                                       post=branch_on_partition_ge(4, ar("f", "r#1"), "f", "r#1", "after"), ret="after")
    tok = "%tk = stablehlo.create_token : !stablehlo.token\n      "
    out["ring_send_first"] = program(n, tok + send("sd", "h", "tk") + "\n      " + recv("rv", "sd") + "\n      %s = stablehlo.add %rv#0, %h : tensor<4xf32>")
    out["ring_recv_first"] = program(n, tok + recv("rv", "tk") + "\n      " + send("sd", "h", "rv#1") + "\n      %s = stablehlo.add %rv#0, %h : tensor<4xf32>")
    out["step_two_le"] = program(n, ar("s", "h"), step=2, direction="LE", bound=2 * n - 1)
    out["counting_down_gt"] = program(n, ar("s", "h"), start=n, step=-1, direction="GT", bound=0)
    out["ne_exact"] = program(n, ar("s", "h"), step=3, direction="NE", bound=3 * n)
    return out
