// Async starts reached through func.call: partition 0 calls @reduce_then_gather,
// partition 1 calls @gather_then_reduce. Each function starts its second collective
// on the first one's result, so the issue orders are fixed and crossed: process 0
// issues the all_reduce first, process 1 the all_gather. XLA issues starts in program
// order and the first collective each process issues must be the same: XLA:CPU
// aborts (`shlo-lint run --engine xla`: 1 of 2 participants arrived).
module @crossed_calls attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %p = stablehlo.partition_id : tensor<ui32>
    %pi = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %r = "stablehlo.case"(%pi) ({
      %a = func.call @reduce_then_gather(%x) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %a : tensor<4xf32>
    }, {
      %b = func.call @gather_then_reduce(%x) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %b : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
  func.func private @reduce_then_gather(%x: tensor<4xf32>) -> tensor<4xf32> {
    %f = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %s = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb1(%u: tensor<f32>, %v: tensor<f32>):
        %t = stablehlo.add %u, %v : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    %fr = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
    %g = "stablehlo.async_start"(%fr) ({
    ^bb0(%a: tensor<4xf32>):
      %s = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<8xf32>
      stablehlo.return %s : tensor<8xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
    %gr = "stablehlo.async_done"(%g) : (!stablehlo.future<tensor<8xf32>>) -> tensor<8xf32>
    %h = stablehlo.slice %gr [0:4] : (tensor<8xf32>) -> tensor<4xf32>
    return %h : tensor<4xf32>
  }
  func.func private @gather_then_reduce(%x: tensor<4xf32>) -> tensor<4xf32> {
    %g = "stablehlo.async_start"(%x) ({
    ^bb0(%a: tensor<4xf32>):
      %s = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<8xf32>
      stablehlo.return %s : tensor<8xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<8xf32>>
    %gr = "stablehlo.async_done"(%g) : (!stablehlo.future<tensor<8xf32>>) -> tensor<8xf32>
    %h = stablehlo.slice %gr [4:8] : (tensor<8xf32>) -> tensor<4xf32>
    %f = "stablehlo.async_start"(%h) ({
    ^bb0(%a: tensor<4xf32>):
      %s = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb1(%u: tensor<f32>, %v: tensor<f32>):
        %t = stablehlo.add %u, %v : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
    %fr = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>
    return %fr : tensor<4xf32>
  }
}
