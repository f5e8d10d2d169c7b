// Constants of the API layer that the activation bundle needs without loading the client.
export const DEFAULT_BASE_URL = 'https://console.vast.ai';
