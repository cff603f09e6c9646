export const API_PREFIX = '/api/v1/partner';
