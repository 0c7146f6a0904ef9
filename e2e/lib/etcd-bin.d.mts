export function etcdBinary(): string;
