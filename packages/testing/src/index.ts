export { TestClient, RpcError, connect, type ConnectOptions, type RequestOptions } from './test-client';
export { rpcErrorOf, memoryLogger, quietOptions } from './helpers';
