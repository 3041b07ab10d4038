import type { AutoTopUp } from '@meterway/contracts';

const brands: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
};

/** "Visa •••• 4242": the providers name brands in lower case ("visa", "amex"). */
export function cardLabel({ brand, last4 }: NonNullable<AutoTopUp['paymentMethod']>): string {
  const name = brands[brand.toLowerCase()] ?? (brand ? brand.charAt(0).toUpperCase() + brand.slice(1) : 'Card');
  return `${name} •••• ${last4}`;
}
