# The FailedBankCD tutorial model: a bank and its details, one to one, each deleting the other.
# Its version hashes equal those of the tutorial's own FailedBankCD.xcdatamodeld.
schema "0001 initial" do
  entity "FailedBankInfo" do
    string :name
    string :city
    string :state

    has_one :details, inverse: "FailedBankDetails.info", deletionRule: "Cascade"
  end

  entity "FailedBankDetails" do
    datetime  :closeDate
    datetime  :updateDate
    integer32 :zip

    has_one :info, inverse: "FailedBankInfo.details", deletionRule: "Cascade"
  end
end
