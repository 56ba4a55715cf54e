// Process groups given as mesh axes (#stablehlo.replica_group_mesh_axes): on a
// 2x2 mesh ("x" major), grouping over "x" pairs devices {0, 2} and {1, 3}; with
// device_ids [0, 2, 1, 3] the same axis pairs {0, 1} and {2, 3}; a sub-axis
// "x":(1)2 of a 4-device axis is its major half: {0, 2} and {1, 3}.
module @mesh_axes {
  "sdy.mesh"() {sym_name = "permuted", stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 2 : i64}], device_ids = dense<[0, 2, 1, 3]> : tensor<4xi64>}} : () -> ()
  func.func @f(%x: tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<2xi64>) {
    %a = "stablehlo.all_reduce"(%x) ({
    ^bb0(%p: tensor<i64>, %q: tensor<i64>):
      %s = stablehlo.add %p, %q : tensor<i64>
      stablehlo.return %s : tensor<i64>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, #stablehlo.mesh_axis<name = "y", size = 2>]>, axes = [#stablehlo.axis_ref<name = "x">]>} : (tensor<i64>) -> tensor<i64>
    %b = "stablehlo.all_reduce"(%x) ({
    ^bb0(%p: tensor<i64>, %q: tensor<i64>):
      %s = stablehlo.add %p, %q : tensor<i64>
      stablehlo.return %s : tensor<i64>
    }) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @permuted, axes = [#stablehlo.axis_ref<name = "x">]>} : (tensor<i64>) -> tensor<i64>
    %x1 = stablehlo.reshape %x : (tensor<i64>) -> tensor<1xi64>
    %c = "stablehlo.all_gather"(%x1) {all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, use_global_device_ids, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 4>]>, axes = [#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>]>} : (tensor<1xi64>) -> tensor<2xi64>
    func.return %a, %b, %c : tensor<i64>, tensor<i64>, tensor<2xi64>
  }
  func.func @main() {
    %d0 = stablehlo.constant dense<1> : tensor<i64>
    %d1 = stablehlo.constant dense<10> : tensor<i64>
    %d2 = stablehlo.constant dense<100> : tensor<i64>
    %d3 = stablehlo.constant dense<1000> : tensor<i64>
    %r:12 = "interpreter.run_parallel"(%d0, %d1, %d2, %d3) {programs = [[@f, @f, @f, @f]]} : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>, tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<2xi64>, tensor<i64>, tensor<i64>, tensor<2xi64>)
    // device 0: {0, 2} / {0, 1} / {0, 2}
    check.expect_eq_const %r#0, dense<101> : tensor<i64>
    check.expect_eq_const %r#1, dense<11> : tensor<i64>
    check.expect_eq_const %r#2, dense<[1, 100]> : tensor<2xi64>
    // device 3: {1, 3} / {2, 3} / {1, 3}
    check.expect_eq_const %r#9, dense<1010> : tensor<i64>
    check.expect_eq_const %r#10, dense<1100> : tensor<i64>
    check.expect_eq_const %r#11, dense<[10, 1000]> : tensor<2xi64>
    func.return
  }
}
