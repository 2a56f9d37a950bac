// Buffer usages of the executor. Functions, not constants: GPUBufferUsage exists only once WebGPU is
// installed (Node: at run time).
export const storageUsage = (): GPUBufferUsageFlags => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
export const readbackUsage = (): GPUBufferUsageFlags => GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST;
