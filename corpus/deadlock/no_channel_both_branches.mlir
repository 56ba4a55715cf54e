// An all_reduce without a channel in each branch of a case on replica_id (what
// a pmap'd lax.cond with a psum on both sides writes: cross-replica collectives
// carry no channel). XLA's rendezvous key for a channel-less collective is its
// kind, its devices and the *module's* id, the same for every op of the module,
// so the two ops meet and the program completes on XLA:CPU (measured by
// bench/deadlock_differential.py, seed 1 case 120). Until then the model gave
// each channel-less op a key of its own and reported a deadlock here: a false
// error. Under the spec's matching the two are different collectives: SHLO502.
module @no_channel attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<8xf32>) -> tensor<8xf32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %i = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %r = "stablehlo.case"(%i) ({
      %a = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<8xf32>) -> tensor<8xf32>
      stablehlo.return %a : tensor<8xf32>
    }, {
      %y = stablehlo.multiply %x, %x : tensor<8xf32>
      %b = "stablehlo.all_reduce"(%y) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %s = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<8xf32>) -> tensor<8xf32>
      stablehlo.return %b : tensor<8xf32>
    }) : (tensor<i32>) -> tensor<8xf32>
    return %r : tensor<8xf32>
  }
}
